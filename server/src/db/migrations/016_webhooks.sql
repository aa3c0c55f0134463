-- Webhooks (issue 12, extension `webhooks`): an account's HTTPS endpoints for export.completed and
-- export.failed. The signing secret is kept encrypted (AES-256-GCM under a key derived from the
-- service's SECRET_KEY): the service must sign with it, so it cannot be a one-way hash like API keys.
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url text NOT NULL CHECK (char_length(url) <= 2000),
  events text[] NOT NULL,
  secret_sealed text NOT NULL,
  secret_hint text NOT NULL,
  created_at timestamptz NOT NULL,
  secret_rotated_at timestamptz
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id);

-- One row per event and endpoint: the outbox the delivery workers of every instance share (claimed
-- with FOR UPDATE SKIP LOCKED and a lease, like exports) and the delivery log the dashboard shows.
-- Times are the database's wall clock: they schedule and measure, every instance must agree.
CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  lease_owner text,
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  last_attempt_at timestamptz,
  attempt_log jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'delivering');
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);
