-- API keys with a name (issue 25, extension `api_key_names`): "CRM sync" tells keys apart where the
-- prefix alone does not. Optional; the service trims it and keeps it to 1–60 characters (counted as
-- JavaScript counts them, so never more code points than that). Keys made before have none.
ALTER TABLE api_keys ADD COLUMN name text CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 60);
