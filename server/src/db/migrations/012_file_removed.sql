-- Clean-up (issue 8): an export's file is deleted once its link has expired; the history row stays
-- and says when the file went.
ALTER TABLE searches ADD COLUMN file_removed_at timestamptz;
CREATE INDEX searches_expired_files ON searches (expires_at) WHERE kind = 'export' AND file_path IS NOT NULL;
