-- The generation of the data a search shows (issue 13). Every statement that changes companies,
-- places or categories moves `version` inside its own transaction (statement triggers, so also
-- changes made by hand or by another instance), and in-process caches of search results
-- (lib/data-version.ts) key their entries by it: a request that reads version N gets a result
-- computed from the data of N or newer, never older, on every instance. `max_created_at` bounds
-- the newest company's created_at (it never moves back): while it is later than the service
-- clock, counts depend on the clock and are not cached.
CREATE TABLE data_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL,
  max_created_at timestamptz
);
INSERT INTO data_version (version, max_created_at) SELECT 1, max(created_at) FROM companies;

CREATE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE data_version SET version = version + 1;
  RETURN NULL;
END
$$;

-- `changed`: the rows the statement inserted or updated (a transition table)
CREATE FUNCTION data_version_companies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE data_version SET version = version + 1,
    max_created_at = greatest(max_created_at, (SELECT max(created_at) FROM changed));
  RETURN NULL;
END
$$;

CREATE TRIGGER data_version_insert AFTER INSERT ON companies
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_version_companies();
CREATE TRIGGER data_version_update AFTER UPDATE ON companies
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_version_companies();
CREATE TRIGGER data_version_delete AFTER DELETE OR TRUNCATE ON companies
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();

-- names and places shown beside the companies (a preview's rows, the countries list, facets)
CREATE TRIGGER data_version_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON categories
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();
CREATE TRIGGER data_version_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON countries
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();
CREATE TRIGGER data_version_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON level1_locations
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();
CREATE TRIGGER data_version_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON level2_locations
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();
CREATE TRIGGER data_version_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON level3_locations
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();
