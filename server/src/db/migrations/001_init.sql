-- Schema of the reference lead-data service. Times are timestamptz and always written from the
-- service clock (lib/clock.ts), never NOW(), so the test clock moves everything consistently.

CREATE TABLE plans (
  id serial PRIMARY KEY,
  plan_type varchar(20) NOT NULL UNIQUE,
  monthly_credits integer NOT NULL,
  price_per_month numeric(10, 2) NOT NULL,
  link_expiration_days integer NOT NULL,
  product_id varchar(100) NOT NULL,
  price_id varchar(100) NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  is_sellable boolean NOT NULL DEFAULT true,
  allows_fresh_exports boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE users (
  id serial PRIMARY KEY,
  email varchar(254) NOT NULL,
  password_hash text NOT NULL,
  first_name varchar(150) NOT NULL DEFAULT '',
  last_name varchar(150) NOT NULL DEFAULT '',
  preferred_language varchar(2) NOT NULL DEFAULT 'en',
  plan_id integer REFERENCES plans(id),
  remaining_credits integer NOT NULL DEFAULT 0 CHECK (remaining_credits >= 0),
  current_period_start timestamptz,
  current_period_end timestamptz,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_email_lower ON users (lower(email));

-- Purchased credits: one row per purchase ("lot"); expired lots never count.
CREATE TABLE credit_lots (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  amount integer NOT NULL CHECK (amount > 0),
  remaining integer NOT NULL CHECK (remaining >= 0),
  purchased_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX credit_lots_user ON credit_lots (user_id, expires_at);

-- Refresh tokens are tracked by jti; a rotated token presented again revokes its whole family.
CREATE TABLE refresh_tokens (
  jti text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  family_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

CREATE TABLE password_resets (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);

-- API keys: only a SHA-256 of the full key is stored; the prefix is kept to show and to look up.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_key varchar(16) NOT NULL,
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expiry timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE countries (
  code char(2) PRIMARY KEY,
  name text NOT NULL,
  language varchar(2) NOT NULL
);

CREATE TABLE level1_locations (
  id serial PRIMARY KEY,
  country_code char(2) NOT NULL REFERENCES countries(code),
  name text NOT NULL,
  code text NOT NULL
);
CREATE INDEX level1_country ON level1_locations (country_code);

CREATE TABLE level2_locations (
  id serial PRIMARY KEY,
  country_code char(2) NOT NULL REFERENCES countries(code),
  level1_id integer NOT NULL REFERENCES level1_locations(id),
  name text NOT NULL,
  code text NOT NULL
);
CREATE INDEX level2_parent ON level2_locations (level1_id);
CREATE INDEX level2_country ON level2_locations (country_code);

CREATE TABLE level3_locations (
  id serial PRIMARY KEY,
  country_code char(2) NOT NULL REFERENCES countries(code),
  level1_id integer NOT NULL REFERENCES level1_locations(id),
  level2_id integer NOT NULL REFERENCES level2_locations(id),
  name text NOT NULL,
  code text NOT NULL,
  latitude double precision NOT NULL,
  longitude double precision NOT NULL
);
CREATE INDEX level3_parent ON level3_locations (level2_id);
CREATE INDEX level3_country ON level3_locations (country_code);

-- names: {"en": "...", "de": "...", ...}
CREATE TABLE categories (
  id serial PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name_en text NOT NULL,
  names jsonb NOT NULL
);

CREATE TABLE companies (
  id serial PRIMARY KEY,
  name text NOT NULL,
  emails text[] NOT NULL DEFAULT '{}',
  phone text,
  website text,
  instagram text,
  facebook text,
  address text,
  zipcode text,
  country_code char(2) NOT NULL REFERENCES countries(code),
  level1_id integer NOT NULL REFERENCES level1_locations(id),
  level2_id integer NOT NULL REFERENCES level2_locations(id),
  level3_id integer NOT NULL REFERENCES level3_locations(id),
  main_category_id integer NOT NULL REFERENCES categories(id),
  category_ids integer[] NOT NULL,
  rating numeric(2, 1),
  review_count integer NOT NULL DEFAULT 0,
  latitude double precision NOT NULL,
  longitude double precision NOT NULL,
  place_id text NOT NULL UNIQUE,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  created_at timestamptz NOT NULL,
  collected_at timestamptz NOT NULL
);
CREATE INDEX companies_country ON companies (country_code);
CREATE INDEX companies_level1 ON companies (level1_id);
CREATE INDEX companies_level2 ON companies (level2_id);
CREATE INDEX companies_level3 ON companies (level3_id);
CREATE INDEX companies_main_category ON companies (main_category_id);
CREATE INDEX companies_categories ON companies USING gin (category_ids);
CREATE INDEX companies_created ON companies (created_at);

-- A search is a previewed set of filters (kind 'preview', one per account and filter set) or an
-- export started from one (kind 'export'; each export has its own id = search_id in the history).
CREATE TABLE searches (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind varchar(10) NOT NULL CHECK (kind IN ('preview', 'export')),
  filters jsonb NOT NULL,
  filters_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  -- export fields
  source_search_id integer REFERENCES searches(id),
  delta_of integer REFERENCES searches(id),
  status varchar(12),
  progress integer NOT NULL DEFAULT 0,
  processed_count integer NOT NULL DEFAULT 0,
  lead_count integer NOT NULL DEFAULT 0,
  credits_charged integer NOT NULL DEFAULT 0,
  export_format varchar(5),
  max_leads integer,
  capped boolean NOT NULL DEFAULT false,
  -- the export holds companies with created_after < created_at <= snapshot_at, first lead_count by id
  created_after timestamptz,
  snapshot_at timestamptz,
  file_path text,
  filename text,
  file_size_bytes bigint,
  completed_at timestamptz,
  expires_at timestamptz,
  error text
);
CREATE UNIQUE INDEX searches_preview_unique ON searches (user_id, filters_hash) WHERE kind = 'preview';
CREATE INDEX searches_user_exports ON searches (user_id, created_at DESC, id DESC) WHERE kind = 'export';
CREATE INDEX searches_status ON searches (status) WHERE kind = 'export';

-- Who paid what for each export, so that a failed export's retry charges nothing new.
CREATE TABLE credit_charges (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  search_id integer NOT NULL REFERENCES searches(id),
  from_subscription integer NOT NULL,
  from_purchased integer NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX credit_charges_user ON credit_charges (user_id, created_at);

CREATE TABLE page_snapshots (
  id serial PRIMARY KEY,
  country_code char(2) NOT NULL REFERENCES countries(code),
  section text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX page_snapshots_country ON page_snapshots (country_code, section, created_at DESC);
