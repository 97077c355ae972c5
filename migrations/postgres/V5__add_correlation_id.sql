-- The identifier that follows an inbox message through every log line.
ALTER TABLE inbox ADD COLUMN correlation_id VARCHAR(128);
