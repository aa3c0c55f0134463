-- Extension email_columns (issue 25): a lead's emails in one cell (`joined`, the interface's file) or
-- one per column (`split`). Kept with the export, like its columns and file language (migration 013),
-- so its retry and its fresh-data exports write the same kind of file.
ALTER TABLE searches ADD COLUMN email_columns text NOT NULL DEFAULT 'joined' CHECK (email_columns IN ('joined', 'split'));
