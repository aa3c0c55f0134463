-- Test hook POST /api/_test/fail-next-export/ (decisions.md): the account's next export fails in the
-- worker. Kept in the database (not in memory) so it holds across worker restarts.
ALTER TABLE users ADD COLUMN fail_next_export boolean NOT NULL DEFAULT false;
