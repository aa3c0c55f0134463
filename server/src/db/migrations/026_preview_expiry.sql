-- Preview searches expire (issue 24). Every distinct filter set an account previews is a `searches` row
-- (its search_id); nothing deleted them (20,535 rows for one account in a test). A preview row now
-- says when it was last asked for (`used_at`, moved at most once a day: routes/companies.ts), and the
-- clean-up deletes those not asked for in PREVIEW_SEARCH_DAYS that no export was started from
-- (jobs/cleanup.ts). Until its first use after this migration a row counts as used when created.
ALTER TABLE searches ADD COLUMN used_at timestamptz;
CREATE INDEX searches_previews_used ON searches ((coalesce(used_at, created_at))) WHERE kind = 'preview';
-- the rows that point at a search: looked up for each preview the clean-up deletes
CREATE INDEX searches_source ON searches (source_search_id) WHERE source_search_id IS NOT NULL;
CREATE INDEX searches_delta_of ON searches (delta_of) WHERE delta_of IS NOT NULL;
