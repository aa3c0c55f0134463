-- Enrichment exports (issue 27, "Fill in my list"): an export made from a matched list rather than a
-- search. It is a `searches` row like every export (status, file, expiry, retry, webhooks), marked by
-- its list. The list's id is kept without a foreign key and its name beside it: the export, paid for,
-- outlives a deleted list (its history entry still names it); list ids are never reused.
ALTER TABLE searches ADD COLUMN list_id integer, ADD COLUMN list_name text,
  -- the list's mapping when the export was charged (field → column): which own cells the file fills
  ADD COLUMN list_mapping jsonb;
CREATE INDEX searches_list ON searches (list_id, id) WHERE list_id IS NOT NULL;

-- Each row's match as charged: a retry, or a redo after a takeover, writes the same file whatever
-- the list's matches have become since (matched again, matched by hand). Only matched and ambiguous
-- rows are kept: the list was wholly matched when charged, so any other row was unmatched.
CREATE TABLE enrichment_rows (
  export_id integer NOT NULL REFERENCES searches(id) ON DELETE CASCADE,
  row_no integer NOT NULL,
  status text NOT NULL,
  company_id integer REFERENCES companies(id) ON DELETE SET NULL,
  PRIMARY KEY (export_id, row_no)
);
