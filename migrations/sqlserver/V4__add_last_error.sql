-- The reason of the last failed delivery.
ALTER TABLE outbox ADD last_error NVARCHAR(MAX) NULL;
GO
