-- Webhook events queued by the export's own status change (issue 23): a row trigger on `searches`
-- queues export.completed or export.failed for every endpoint of the account subscribed to it, in the
-- statement that changes the status, whoever writes it (the worker of any instance, psql), once per
-- transition. Before, each of the worker's final statements carried the INSERT itself.

-- When the export last failed, by the service clock (as completed_at): the time of its export.failed event.
ALTER TABLE searches ADD COLUMN failed_at timestamptz;

CREATE FUNCTION queue_export_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ev_type text := CASE NEW.status WHEN 'COMPLETED' THEN 'export.completed' ELSE 'export.failed' END;
  -- `evt_` and 24 hex digits (96 random bits), as newEventId (lib/webhooks.ts) writes the test events'
  ev_id text := 'evt_' || left(encode(sha256(uuid_send(gen_random_uuid())), 'hex'), 24);
  -- a status set by hand without its time: the database's clock
  ev_at timestamptz := coalesce(CASE NEW.status WHEN 'COMPLETED' THEN NEW.completed_at ELSE NEW.failed_at END, clock_timestamp());
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload)
  SELECT e.id, ev_id, ev_type, jsonb_build_object(
           'id', ev_id, 'type', ev_type, 'created_at', to_char(ev_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', jsonb_build_object(
             'search_id', NEW.id, 'name', NEW.name, 'status', NEW.status, 'lead_count', NEW.lead_count,
             'credits_charged', NEW.credits_charged, 'export_format', NEW.export_format, 'delta_of', NEW.delta_of,
             'filename', NEW.filename, 'file_size_bytes', NEW.file_size_bytes, 'completed_at', NEW.completed_at,
             'expires_at', NEW.expires_at, 'error', NEW.error))
    FROM webhook_endpoints e
   WHERE e.user_id = NEW.user_id AND ev_type = ANY(e.events);
  RETURN NULL;
END
$$;

CREATE TRIGGER searches_export_event AFTER UPDATE OF status ON searches
  FOR EACH ROW WHEN (NEW.kind = 'export' AND NEW.status IN ('COMPLETED', 'FAILED') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION queue_export_event();
