-- Fair, bounded webhook delivery (issue 22). One account must not slow another's deliveries.

-- Endpoint health: timeouts in a row; after WEBHOOK_UNHEALTHY_AFTER of them the endpoint is unhealthy
-- (since `unhealthy_since`) and its deliveries wait until `paused_until`, when one of them is tried
-- again; an answer of any kind makes it healthy again, and so does the owner's "resume".
ALTER TABLE webhook_endpoints ADD COLUMN consecutive_timeouts integer NOT NULL DEFAULT 0;
ALTER TABLE webhook_endpoints ADD COLUMN unhealthy_since timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN paused_until timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN resumed_at timestamptz;

-- When each account's last delivery was claimed: the account that has waited longest goes next.
CREATE TABLE webhook_turns (
  user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  last_claimed_at timestamptz NOT NULL
);

-- Test events sent and endpoints added, per account: the limits count these rows, which outlive the
-- endpoint (deleting and adding an endpoint again does not give test events or additions back).
CREATE TABLE webhook_account_events (
  id bigserial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('test', 'create')),
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_account_events_user ON webhook_account_events (user_id, kind, at);

-- Deliveries being sent, per account: the claim looks for them.
CREATE INDEX webhook_deliveries_delivering ON webhook_deliveries (endpoint_id) WHERE status = 'delivering';

-- The delivery log holds error categories (codes the dashboard translates), never a receiver's or a
-- proxy's own words: earlier raw messages become the category `other`.
UPDATE webhook_deliveries SET last_error = 'other' WHERE last_error IS NOT NULL;
UPDATE webhook_deliveries
   SET attempt_log = (
     SELECT coalesce(jsonb_agg((a - 'error') || jsonb_build_object('error_code', CASE WHEN a->>'error' IS NULL THEN NULL ELSE 'other' END) ORDER BY n), '[]'::jsonb)
       FROM jsonb_array_elements(attempt_log) WITH ORDINALITY AS x(a, n))
 WHERE jsonb_array_length(attempt_log) > 0;
