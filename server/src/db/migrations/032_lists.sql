-- Lists (issue 27, extension `lists`): a person's own file of businesses (customers, a CRM export),
-- uploaded, mapped to our fields and matched to companies by a job on the one runner (jobs/runner.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE lists (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  -- uploading (rows being written; not shown), uploaded (mapping to confirm), queued, matching,
  -- matched, failed, cancelled: the job runner's states are queued/matching/matched/failed
  status text NOT NULL,
  file_type text NOT NULL CHECK (file_type IN ('csv', 'xlsx')),
  encoding text,
  delimiter text,
  headers text[] NOT NULL,
  -- field → column index (modules/lists/mapping.ts): proposed from the headers, then confirmed
  proposed_mapping jsonb NOT NULL,
  mapping jsonb,
  default_country char(2),
  total_rows integer NOT NULL DEFAULT 0,
  -- rows matched so far by the job (in row order: the job resumes after the last one written)
  matched_rows integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  due_at timestamptz NOT NULL DEFAULT now(),
  error text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX lists_user ON lists (user_id, id);
CREATE INDEX lists_jobs ON lists (id) WHERE status IN ('queued', 'matching');

CREATE TABLE list_rows (
  list_id integer NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  row_no integer NOT NULL,
  -- the row's cells as uploaded, as a JSON array of texts
  cells jsonb NOT NULL,
  -- null until matched; matched, ambiguous or unmatched
  status text,
  company_id integer REFERENCES companies(id) ON DELETE SET NULL,
  -- domain, phone, name_city, manual
  rule text,
  confidence real,
  -- an ambiguous row's candidates (at most a few), best first
  candidates integer[],
  PRIMARY KEY (list_id, row_no)
);
CREATE INDEX list_rows_status ON list_rows (list_id, status, row_no);
-- the matched companies of a list (suppression: modules/lists/service.ts listsExcludeWhere)
CREATE INDEX list_rows_company ON list_rows (list_id, company_id) WHERE company_id IS NOT NULL;

-- What a company is matched by, computed in JS (modules/lists/keys.ts: tldts' registrable domain,
-- libphonenumber-js' E.164, a normalised name), so none of it can be SQL: written by the seed as it
-- copies the companies, and filled by the matching job for any company written since without them.
CREATE TABLE company_match_keys (
  company_id integer PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
  level3_id integer NOT NULL,
  name_key text NOT NULL,
  site_domain text,
  phone_e164 text
);
CREATE INDEX company_match_keys_domain ON company_match_keys (site_domain) WHERE site_domain IS NOT NULL;
CREATE INDEX company_match_keys_phone ON company_match_keys (phone_e164) WHERE phone_e164 IS NOT NULL;
CREATE INDEX company_match_keys_city_name ON company_match_keys (level3_id, name_key);

-- Every distinct name key once, with a trigram index: a near-miss ("Baeckerei Mueler") finds the names
-- like it here, then the companies of that name in the row's city by the index above. (Many companies
-- share a name: a trigram index over all of them would be walked once per company.)
CREATE TABLE company_name_keys (name_key text PRIMARY KEY);
CREATE INDEX company_name_keys_trgm ON company_name_keys USING gin (name_key gin_trgm_ops);
