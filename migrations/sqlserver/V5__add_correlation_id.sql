-- The identifier that follows an inbox message through every log line.
ALTER TABLE inbox ADD correlation_id NVARCHAR(128) NULL;
GO
