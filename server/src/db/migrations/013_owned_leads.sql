-- Pay only for what you need (issue 11). Each export records the leads it delivers, fixed when it is
-- charged: the worker writes exactly those, and "leads this account already has" is a lookup by
-- place_id over every export of the account (a FAILED one included: it was charged and its retry
-- delivers the same leads at no charge).
CREATE TABLE export_leads (
  export_id integer NOT NULL REFERENCES searches(id) ON DELETE CASCADE,
  company_id integer NOT NULL,
  user_id integer NOT NULL,
  place_id text NOT NULL,
  PRIMARY KEY (export_id, company_id)
);
CREATE INDEX export_leads_owned ON export_leads (user_id, place_id);
-- Exports made before this migration are recorded once at start-up (lib/owned-leads.ts).
ALTER TABLE searches ADD COLUMN leads_recorded boolean NOT NULL DEFAULT false;
-- Extensions of the export request, kept with the export so a retry or a fresh-data export of it
-- produces the same kind of file.
ALTER TABLE searches ADD COLUMN skip_owned boolean NOT NULL DEFAULT false;
ALTER TABLE searches ADD COLUMN skipped_owned integer NOT NULL DEFAULT 0;
ALTER TABLE searches ADD COLUMN columns jsonb;
ALTER TABLE searches ADD COLUMN file_locale varchar(5);
