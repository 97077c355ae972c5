-- The kind of business entity; address templates can read it.
ALTER TABLE outbox ADD aggregate_type NVARCHAR(255) NULL;
GO
