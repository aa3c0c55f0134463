-- List matching (issue 27) finds near-miss names among the names of the row's city, in memory
-- (modules/lists/city-names.ts), by the (level3_id, name_key) index of company_match_keys: the
-- distinct names with their trigram index over all cities are no longer read.
DROP TABLE company_name_keys;

-- A name key leaves out the possessive's "s" (modules/lists/keys.ts nameKey: "Miller's Bakery" is
-- "miller bakery"); the keys written before are made so here rather than computed again.
UPDATE company_match_keys
   SET name_key = btrim(regexp_replace(name_key, '(^| )s(?= |$)', '', 'g'))
 WHERE name_key ~ '(^| )s( |$)' AND btrim(regexp_replace(name_key, '(^| )s(?= |$)', '', 'g')) <> '';
