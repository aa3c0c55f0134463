-- Extension `geo` (issue 26): each company's H3 cell at resolutions 3, 5, 7 and 9 (the cells of the
-- map, chosen by zoom: modules/search/cells.ts), as 64-bit H3 indexes. H3 is computed in JavaScript
-- (h3-js) where companies are written (seed/companies.ts); rows written otherwise (by hand, by an
-- older instance) are filled at start-up (db/company-cells.ts) and, until then, placed by the map's
-- query itself: nothing here may assume every row has its cells.
ALTER TABLE companies ADD COLUMN h3_r3 bigint, ADD COLUMN h3_r5 bigint, ADD COLUMN h3_r7 bigint, ADD COLUMN h3_r9 bigint;

-- The map's counts for a box: the resolution-3 cells covering the box (and the chosen countries)
-- select the entries, and every column a search filters on is in the index, so a whole country is
-- counted from the index alone (an index-only scan), never from the table's pages.
CREATE INDEX companies_cells ON companies (h3_r3, country_code)
  INCLUDE (h3_r5, h3_r7, h3_r9, latitude, longitude, level1_id, level2_id, level3_id, main_category_id, category_ids,
           has_email, has_phone, has_website, created_at, id);

-- Rows still without cells, found at once (usually none).
CREATE INDEX companies_cells_missing ON companies (id) WHERE h3_r9 IS NULL;

-- The box around a territory (`within`, `near`): a range of latitudes, narrowed by longitude in the index.
CREATE INDEX companies_position ON companies (latitude, longitude);
