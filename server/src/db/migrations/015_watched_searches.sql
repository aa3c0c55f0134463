-- Named and watched searches (issue 12, extension `watched_searches`): an original export can carry a
-- name and be watched; the dashboard asks the free fresh-data dry run of each watched one for "N new".
ALTER TABLE searches ADD COLUMN name text CHECK (char_length(name) BETWEEN 1 AND 80);
ALTER TABLE searches ADD COLUMN watched boolean NOT NULL DEFAULT false;
CREATE INDEX searches_watched ON searches (user_id, created_at DESC) WHERE watched;
