-- Account security (issue 9).
-- Sign-up is confirmed by a mailed link before the free plan's credits arrive; accounts that existed
-- before this migration (and the seeded demo account) count as confirmed.
ALTER TABLE users ADD COLUMN email_confirmed_at timestamptz;
UPDATE users SET email_confirmed_at = created_at;
-- An email change waits here until the new address is confirmed.
ALTER TABLE users ADD COLUMN pending_email varchar(254);

-- One-use links mailed for confirming a sign-up or a new address; only a SHA-256 of the token is kept.
CREATE TABLE email_confirmations (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind varchar(16) NOT NULL CHECK (kind IN ('signup', 'email_change')),
  new_email varchar(254),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX email_confirmations_user ON email_confirmations (user_id, kind);

-- Failed sign-ins per address typed (existing account or not, so the answer never tells which):
-- after 5 failures each further one doubles the wait; a success clears the row. In the database, so
-- every service instance on it sees the same count.
CREATE TABLE login_failures (
  email_lower varchar(254) PRIMARY KEY,
  failures integer NOT NULL,
  blocked_until timestamptz,
  last_failure_at timestamptz NOT NULL
);

-- Password-reset mails per account are counted from password_resets.created_at.
CREATE INDEX password_resets_user ON password_resets (user_id, created_at);

-- Refresh-token rotation: the successor of a rotated token, so that the same token presented again
-- within the grace window gets the same successor instead of ending the session.
ALTER TABLE refresh_tokens ADD COLUMN replaced_by text;
