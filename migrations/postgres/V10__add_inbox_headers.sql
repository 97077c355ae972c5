-- The received headers, one string value per name.
ALTER TABLE inbox ADD COLUMN headers JSONB NOT NULL DEFAULT '{}';
