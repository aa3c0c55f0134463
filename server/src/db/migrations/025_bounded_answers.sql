-- Every answer costs what its result costs, not what the database holds (issue 24).
--
-- Counts of companies by (city, contact flags) existed (company_counts, migration 003); beside them now
-- counts by (category, city, flags) and by (category, country, flags), with n (companies having the
-- category) and n_main (having it as their main category). A preview's count, its facets, an export's
-- count and the owned count sum at most categories × places × flag combinations, whatever the number
-- of companies. The only count they cannot give exactly is "any of several categories" (a company
-- with two of them counts once): it reads company_categories, one index entry per company and
-- category, narrowed by the category and the place.
--
-- All of these are kept by statement triggers on companies, in the writing transaction, whoever
-- writes (the seed, the test hook, another instance, psql): company_counts_state.max_id no longer
-- trails anything (every company is counted), and max_created_at still bounds what the counts hold.

-- 1. the counts, rebuilt from the companies

TRUNCATE company_counts;
ALTER TABLE company_counts DROP CONSTRAINT company_counts_pkey;
-- the whole place in the key: a company whose city lay in another county than the city's own would
-- still count where its own columns say
ALTER TABLE company_counts ADD PRIMARY KEY (level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website);
INSERT INTO company_counts (country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, n)
SELECT country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, count(*)
  FROM companies GROUP BY 1, 2, 3, 4, 5, 6, 7;

CREATE TABLE category_counts (
  category_id integer NOT NULL,
  country_code char(2) NOT NULL,
  level1_id integer NOT NULL,
  level2_id integer NOT NULL,
  level3_id integer NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  -- companies with the category among category_ids, and those whose main_category_id it is
  n integer NOT NULL,
  n_main integer NOT NULL,
  PRIMARY KEY (category_id, level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website)
);
-- facets split a place's companies by category
CREATE INDEX category_counts_level1 ON category_counts (level1_id);
CREATE INDEX category_counts_level2 ON category_counts (level2_id);
CREATE INDEX category_counts_level3 ON category_counts (level3_id);

CREATE TABLE category_country_counts (
  country_code char(2) NOT NULL,
  category_id integer NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  n integer NOT NULL,
  n_main integer NOT NULL,
  PRIMARY KEY (country_code, category_id, has_email, has_phone, has_website)
);

-- One row per company and each of its categories, its main one included (each once): for "any of
-- several categories" (a company with two counts once), and for the ids of a preview page of a
-- category search (routes/companies.ts), both read from the index alone.
DROP TABLE company_categories;
CREATE TABLE company_categories (
  category_id integer NOT NULL,
  country_code char(2) NOT NULL,
  level1_id integer NOT NULL,
  level2_id integer NOT NULL,
  level3_id integer NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  company_id integer NOT NULL,
  -- among category_ids (what `category` matches), and the main category (`main_activity_only`)
  listed boolean NOT NULL,
  is_main boolean NOT NULL,
  -- the company's category_ids: "any of several categories" counts a company once, at the first of
  -- them it has (lib/company-counts.ts), without gathering its entries
  category_ids integer[] NOT NULL
);

-- A company's categories are a set: each category once, none empty. The counts rely on it (an id
-- twice in category_ids would count twice where `category` matches once): the trigger below refuses
-- a write that breaks it, and what this migration finds is folded.
UPDATE companies SET category_ids = ARRAY(SELECT x FROM unnest(category_ids) WITH ORDINALITY u(x, i) WHERE x IS NOT NULL GROUP BY x ORDER BY min(i))
 WHERE EXISTS (SELECT 1 FROM unnest(category_ids) WITH ORDINALITY u(x, i) WHERE x IS NULL OR array_position(category_ids, x) <> i);

-- category_ids, then the main category when it is not among them (each category of a company once)
CREATE FUNCTION categories_and_main(category_ids integer[], main integer) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
  'SELECT CASE WHEN main = ANY(category_ids) THEN category_ids ELSE category_ids || main END';

-- The derived rows of a set of companies (`c`, with a column `d`: +1 added, -1 removed), shared by the
-- triggers below and the seed (seed/companies.ts builds them once after its bulk load).
CREATE FUNCTION company_derived_sql(source text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
SELECT ARRAY[
  format($q$
    INSERT INTO company_counts AS t (country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, n)
    SELECT country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, sum(d)
      FROM (%s) c GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 4, 3, 2, 1, 5, 6, 7
    ON CONFLICT (level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website) DO UPDATE SET n = t.n + EXCLUDED.n
  $q$, source),
  -- each category of a company once, its main category included (main_activity_only counts by it)
  format($q$
    INSERT INTO category_counts AS t (category_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, n, n_main)
    SELECT x.category_id, c.country_code, c.level1_id, c.level2_id, c.level3_id, c.has_email, c.has_phone, c.has_website,
           sum(CASE WHEN x.i <= cardinality(c.category_ids) THEN c.d ELSE 0 END),
           sum(CASE WHEN x.category_id = c.main_category_id THEN c.d ELSE 0 END)
      FROM (%s) c CROSS JOIN LATERAL unnest(categories_and_main(c.category_ids, c.main_category_id)) WITH ORDINALITY x(category_id, i)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 1, 5, 4, 3, 2, 6, 7, 8
    ON CONFLICT (category_id, level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website)
    DO UPDATE SET n = t.n + EXCLUDED.n, n_main = t.n_main + EXCLUDED.n_main
  $q$, source),
  format($q$
    INSERT INTO category_country_counts AS t (country_code, category_id, has_email, has_phone, has_website, n, n_main)
    SELECT c.country_code, x.category_id, c.has_email, c.has_phone, c.has_website,
           sum(CASE WHEN x.i <= cardinality(c.category_ids) THEN c.d ELSE 0 END),
           sum(CASE WHEN x.category_id = c.main_category_id THEN c.d ELSE 0 END)
      FROM (%s) c CROSS JOIN LATERAL unnest(categories_and_main(c.category_ids, c.main_category_id)) WITH ORDINALITY x(category_id, i)
     GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (country_code, category_id, has_email, has_phone, has_website)
    DO UPDATE SET n = t.n + EXCLUDED.n, n_main = t.n_main + EXCLUDED.n_main
  $q$, source),
  format($q$
    INSERT INTO company_categories
      (category_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, company_id, listed, is_main, category_ids)
    SELECT x.category_id, c.country_code, c.level1_id, c.level2_id, c.level3_id, c.has_email, c.has_phone, c.has_website, c.id,
           x.i <= cardinality(c.category_ids), x.category_id = c.main_category_id, c.category_ids
      FROM (%s) c CROSS JOIN LATERAL unnest(categories_and_main(c.category_ids, c.main_category_id)) WITH ORDINALITY x(category_id, i)
     WHERE c.d > 0
  $q$, source)
]
$fn$;

DO $$
DECLARE
  q text;
BEGIN
  FOREACH q IN ARRAY company_derived_sql('SELECT *, 1 AS d FROM companies') LOOP
    EXECUTE q;
  END LOOP;
END
$$;

CREATE INDEX company_categories_filters ON company_categories
  (category_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, company_id) INCLUDE (listed, is_main, category_ids);

UPDATE company_counts_state SET max_id = m.max_id, max_created_at = m.max_created_at
  FROM (SELECT coalesce(max(id), 0) AS max_id, max(created_at) AS max_created_at FROM companies) m;

-- 2. kept in step with the companies

CREATE FUNCTION companies_derived() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text;
  q text;
BEGIN
  -- writers of companies apply their changes one after another (and in key order: no deadlock)
  PERFORM 1 FROM company_counts_state FOR UPDATE;
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM company_counts;
    DELETE FROM category_counts;
    DELETE FROM category_country_counts;
    DELETE FROM company_categories;
    UPDATE company_counts_state SET max_id = 0;
    RETURN NULL;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    -- (a statement of its own: `added` exists only for inserts and updates)
    IF EXISTS (SELECT 1 FROM added a CROSS JOIN LATERAL unnest(a.category_ids) WITH ORDINALITY u(x, i)
                WHERE u.x IS NULL OR array_position(a.category_ids, u.x) <> u.i) THEN
      RAISE EXCEPTION 'category_ids must hold each category once and no null' USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  source := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT *, 1 AS d FROM added'
    WHEN 'DELETE' THEN 'SELECT *, -1 AS d FROM removed'
    ELSE 'SELECT *, 1 AS d FROM added UNION ALL SELECT *, -1 AS d FROM removed'
  END;
  IF TG_OP <> 'INSERT' THEN
    -- a seldom path (the service never changes or deletes a company): no index on company_id for it
    DELETE FROM company_categories WHERE company_id IN (SELECT id FROM removed);
  END IF;
  FOREACH q IN ARRAY company_derived_sql(source) LOOP
    EXECUTE q;
  END LOOP;
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM company_counts WHERE n = 0;
    DELETE FROM category_counts WHERE n = 0 AND n_main = 0;
    DELETE FROM category_country_counts WHERE n = 0 AND n_main = 0;
    -- the owned counts of the accounts holding a changed or removed company (kept by their columns)
    PERFORM owned_counts_rebuild((
      SELECT array_agg(DISTINCT e.user_id ORDER BY e.user_id) FROM export_leads e CROSS JOIN LATERAL unnest(e.company_ids) x
       WHERE e.chunk IN (SELECT id >> 10 FROM removed) AND x IN (SELECT id FROM removed)));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    UPDATE company_counts_state s
       SET max_id = greatest(s.max_id, m.max_id), max_created_at = greatest(s.max_created_at, m.max_created_at)
      FROM (SELECT max(id) AS max_id, max(created_at) AS max_created_at FROM added) m
     WHERE m.max_id IS NOT NULL;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER companies_derived_insert AFTER INSERT ON companies
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION companies_derived();
CREATE TRIGGER companies_derived_update AFTER UPDATE ON companies
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION companies_derived();
CREATE TRIGGER companies_derived_delete AFTER DELETE ON companies
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION companies_derived();
CREATE TRIGGER companies_derived_truncate AFTER TRUNCATE ON companies
  FOR EACH STATEMENT EXECUTE FUNCTION companies_derived();

-- 3. what an account owns
--
-- An export's leads are fixed when it is charged (migration 013), now as lists of company ids in
-- ranges of 1,024 ids (`chunk` = company_id / 1024, ids ascending): an export of 100,000 leads is a
-- hundred-odd rows written by one statement, not 100,000 rows each checked by a foreign-key trigger.
-- An account owns a lead when any of its exports lists it. Its owned counts by (city, flags) and by
-- (category, country, flags) are added to by the statement that writes a list (lib/lead-sets.ts, from
-- the companies it picked: the only writer of lists), and built again by the triggers below when
-- lists are removed or changed, or companies an account owns change.
CREATE TABLE export_lead_lists (
  export_id integer NOT NULL,
  chunk integer NOT NULL,
  user_id integer NOT NULL,
  company_ids integer[] NOT NULL,
  PRIMARY KEY (export_id, chunk)
);
INSERT INTO export_lead_lists (export_id, chunk, user_id, company_ids)
SELECT export_id, company_id >> 10, user_id, array_agg(company_id ORDER BY company_id)
  FROM export_leads GROUP BY 1, 2, 3;
DROP TABLE export_leads;
ALTER TABLE export_lead_lists RENAME TO export_leads;
ALTER INDEX export_lead_lists_pkey RENAME TO export_leads_pkey;
CREATE INDEX export_leads_owner ON export_leads (user_id, chunk);

CREATE TABLE owned_counts (
  user_id integer NOT NULL,
  country_code char(2) NOT NULL,
  level1_id integer NOT NULL,
  level2_id integer NOT NULL,
  level3_id integer NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (user_id, level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website)
);

CREATE TABLE owned_category_counts (
  user_id integer NOT NULL,
  category_id integer NOT NULL,
  country_code char(2) NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  n integer NOT NULL,
  n_main integer NOT NULL,
  PRIMARY KEY (user_id, category_id, country_code, has_email, has_phone, has_website)
);

-- Adds to the owned counts the companies of `fresh` (a relation with user_id and the companies'
-- filter columns, country_code … category_ids, each company once per account and owned by none of
-- its lists before), with `d` +1 or -1. lib/lead-sets.ts does the same for a new list.
CREATE FUNCTION owned_counts_sql(fresh text, d integer) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
SELECT format($q$
  WITH c AS MATERIALIZED (%1$s),
  a AS (
    INSERT INTO owned_counts AS t (user_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, n)
    SELECT user_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, %2$s * count(*)
      FROM c GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (user_id, level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website) DO UPDATE SET n = t.n + EXCLUDED.n)
  INSERT INTO owned_category_counts AS t (user_id, category_id, country_code, has_email, has_phone, has_website, n, n_main)
  SELECT user_id, category_id, country_code, has_email, has_phone, has_website, %2$s * sum(n), %2$s * sum(n_main)
    FROM (SELECT user_id, unnest(category_ids) AS category_id, 1 AS n, 0 AS n_main, country_code, has_email, has_phone, has_website FROM c
          UNION ALL
          SELECT user_id, main_category_id, 0, 1, country_code, has_email, has_phone, has_website FROM c) k
   GROUP BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (user_id, category_id, country_code, has_email, has_phone, has_website)
  DO UPDATE SET n = t.n + EXCLUDED.n, n_main = t.n_main + EXCLUDED.n_main
$q$, fresh, d)
$fn$;

-- An account's owned counts again from what its lists hold now (seldom paths: a list removed or
-- changed by hand, an account removed, a company it owns changed or deleted), one account after
-- another under the account's exports lock (lib/lead-sets.ts).
CREATE FUNCTION owned_counts_rebuild(accounts integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  account integer;
BEGIN
  IF accounts IS NULL OR cardinality(accounts) = 0 THEN
    RETURN;
  END IF;
  FOREACH account IN ARRAY accounts LOOP
    PERFORM pg_advisory_xact_lock(24, account);
  END LOOP;
  DELETE FROM owned_counts WHERE user_id = ANY(accounts);
  DELETE FROM owned_category_counts WHERE user_id = ANY(accounts);
  EXECUTE owned_counts_sql(format(
    $q$SELECT o.user_id, k.country_code, k.level1_id, k.level2_id, k.level3_id, k.has_email, k.has_phone, k.has_website,
              k.main_category_id, k.category_ids
         FROM (SELECT DISTINCT e.user_id, x.id FROM export_leads e CROSS JOIN LATERAL unnest(e.company_ids) x(id)
                WHERE e.user_id = ANY(%L::int[])) o
         JOIN companies k ON k.id = o.id$q$,
    accounts), 1);
END
$$;

SELECT owned_counts_rebuild(array_agg(DISTINCT user_id)) FROM export_leads;

CREATE FUNCTION export_leads_owned() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  accounts integer[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM owned_counts;
    DELETE FROM owned_category_counts;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT user_id ORDER BY user_id) INTO accounts FROM removed;
    PERFORM owned_counts_rebuild(accounts);
  ELSE
    SELECT array_agg(DISTINCT user_id ORDER BY user_id) INTO accounts FROM (SELECT user_id FROM added UNION SELECT user_id FROM removed) u;
    PERFORM owned_counts_rebuild(accounts);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER export_leads_owned_update AFTER UPDATE ON export_leads
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION export_leads_owned();
CREATE TRIGGER export_leads_owned_delete AFTER DELETE ON export_leads
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION export_leads_owned();
CREATE TRIGGER export_leads_owned_truncate AFTER TRUNCATE ON export_leads
  FOR EACH STATEMENT EXECUTE FUNCTION export_leads_owned();

-- The lists went with their export by a foreign key, checked row by row; now by a statement trigger.
CREATE FUNCTION searches_forget_leads() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM export_leads WHERE export_id IN (SELECT id FROM removed WHERE kind = 'export');
  RETURN NULL;
END
$$;
CREATE TRIGGER searches_forget_leads AFTER DELETE ON searches
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION searches_forget_leads();
