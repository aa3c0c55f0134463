-- When set, access tokens of the account issued at or before this instant are refused
-- (lib/auth.ts requireAuth). A password reset sets it to the service clock's now, so the
-- access tokens handed out with the old password end at once instead of living out their hour.
ALTER TABLE users ADD COLUMN tokens_valid_after timestamptz;
