-- One row per company and category, carrying the filter columns, maintained with company_counts
-- (lib/company-counts.ts) for the companies up to company_counts_state.max_id. A preview with a
-- category filter then counts by an index-only scan of the covering index below instead of
-- reading thousands of scattered company rows. Derived data: written in the same transaction as
-- the companies it describes (companies are never deleted).
CREATE TABLE company_categories (
  company_id integer NOT NULL,
  category_id integer NOT NULL,
  is_main boolean NOT NULL,
  country_code char(2) NOT NULL,
  level1_id integer NOT NULL,
  level2_id integer NOT NULL,
  level3_id integer NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE INDEX company_categories_filters ON company_categories
  (category_id, is_main, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, created_at, company_id);

INSERT INTO company_categories
SELECT c.id, x.category_id, x.category_id = c.main_category_id, c.country_code, c.level1_id, c.level2_id, c.level3_id,
       c.has_email, c.has_phone, c.has_website, c.created_at
FROM companies c CROSS JOIN LATERAL unnest(c.category_ids) AS x(category_id)
WHERE c.id <= (SELECT max_id FROM company_counts_state);
