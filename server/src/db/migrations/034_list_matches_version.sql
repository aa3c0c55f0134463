-- Suppression lists (issue 27, `exclude_lists` on the searches): a list's matches have a version, moved
-- by every statement that changes its rows (the matching job, a match or un-match by hand), in that
-- statement's transaction, whoever runs it. The search caches (modules/search) key a search leaving
-- lists out by their versions, so a cached count never outlives a change of what the lists match.
ALTER TABLE lists ADD COLUMN matches_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION list_matches_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE lists SET matches_version = matches_version + 1 WHERE id IN (SELECT DISTINCT list_id FROM changed);
  RETURN NULL;
END $$;

-- transition tables cannot go with a column list (UPDATE OF status, company_id): any update moves it
CREATE TRIGGER list_rows_inserted AFTER INSERT ON list_rows
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION list_matches_moved();
CREATE TRIGGER list_rows_updated AFTER UPDATE ON list_rows
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION list_matches_moved();
CREATE TRIGGER list_rows_deleted AFTER DELETE ON list_rows
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION list_matches_moved();
