-- "This wasn't me" (issue 22): the notice mailed to the OLD address of an email change carries a
-- one-use link that cancels the change (and undoes it if it was already confirmed) and ends every
-- session. Only a SHA-256 of the token is kept.
CREATE TABLE email_change_cancellations (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  old_email varchar(254) NOT NULL,
  new_email varchar(254) NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX email_change_cancellations_user ON email_change_cancellations (user_id);

-- Sign-in back-off rows are keyed by more than the typed address now (a known device, a session's
-- password checks): room for those keys.
ALTER TABLE login_failures ALTER COLUMN email_lower TYPE varchar(400);
