-- The received headers, one string value per name.
ALTER TABLE inbox ADD headers NVARCHAR(MAX) NOT NULL CONSTRAINT df_inbox_headers DEFAULT '{}';
GO
