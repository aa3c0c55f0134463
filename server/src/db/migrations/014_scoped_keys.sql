-- Scoped API keys with a monthly credit cap (issue 12). A 'read' key searches, previews, reads the
-- history and downloads; an 'export' key (every key made before this) may also start exports. An
-- export records the key that started it, so a key's spend this month is a sum over its exports.
ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'export' CHECK (scope IN ('read', 'export'));
ALTER TABLE api_keys ADD COLUMN monthly_credit_cap integer CHECK (monthly_credit_cap > 0);
ALTER TABLE searches ADD COLUMN api_key_id text REFERENCES api_keys(id) ON DELETE SET NULL;
CREATE INDEX searches_api_key ON searches (api_key_id, created_at) WHERE api_key_id IS NOT NULL;
