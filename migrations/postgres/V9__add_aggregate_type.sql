-- The kind of business entity; address templates can read it.
ALTER TABLE outbox ADD COLUMN aggregate_type VARCHAR(255);
