-- Company counts per place and contact flags (lib/company-counts.ts). A preview without a category
-- filter sums a few thousand of these groups instead of scanning every company, which keeps the
-- count fast on the embedded database. company_counts_state says which companies are included
-- (every id <= max_id); newer companies are counted live on top.
CREATE TABLE company_counts (
  country_code char(2) NOT NULL,
  level1_id integer NOT NULL,
  level2_id integer NOT NULL,
  level3_id integer NOT NULL,
  has_email boolean NOT NULL,
  has_phone boolean NOT NULL,
  has_website boolean NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (level3_id, has_email, has_phone, has_website)
);

CREATE TABLE company_counts_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  max_id integer NOT NULL,
  max_created_at timestamptz
);

INSERT INTO company_counts
SELECT country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, count(*)
FROM companies GROUP BY country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website;

INSERT INTO company_counts_state (max_id, max_created_at)
SELECT coalesce(max(id), 0), max(created_at) FROM companies;
