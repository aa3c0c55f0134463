-- Credits are spent earliest-expiry first (issue 21, decisions.md "Credits"): a purchased lot may
-- never expire (expires_at NULL, spent last), and each export's charge (which balances paid) is read
-- by its search_id for the export's answer and its history entry.
ALTER TABLE credit_lots ALTER COLUMN expires_at DROP NOT NULL;
CREATE INDEX credit_charges_search ON credit_charges (search_id);
