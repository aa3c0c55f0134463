-- Export jobs as a queue that several service instances share (issue 8): a worker claims a job with
-- FOR UPDATE SKIP LOCKED and holds a lease it renews while it writes; a job whose lease lapsed (its
-- instance died) is taken over by any worker. Lease times are the database's wall clock
-- (clock_timestamp()), not the service clock: they measure liveness, and every instance must agree.
ALTER TABLE searches ADD COLUMN lease_owner text;
ALTER TABLE searches ADD COLUMN lease_until timestamptz;
ALTER TABLE searches ADD COLUMN attempts integer NOT NULL DEFAULT 0;
CREATE INDEX searches_export_queue ON searches (id) WHERE kind = 'export' AND status IN ('PENDING', 'PROCESSING');
