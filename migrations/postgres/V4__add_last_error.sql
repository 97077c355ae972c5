-- The reason of the last failed delivery.
ALTER TABLE outbox ADD COLUMN last_error TEXT;
