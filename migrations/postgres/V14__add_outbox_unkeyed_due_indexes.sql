-- The two indexes of the unkeyed part of the outbox claim. The claim used
-- to read the pending rows without a key from idx_outbox_key_sequence in
-- sequence order and drop the ones not yet due, so a deep backlog that
-- waits for a later time (a destination paused by an open circuit
-- breaker or a Retry-After, whose rows are deferred) was walked again by
-- every claim and slowed the delivery of every other destination. These
-- indexes order the pending unkeyed rows by (scheduled_at, sequence): the
-- claim starts at the earliest and stops at the first row not yet due.
-- Rows with an empty key get their own index, as the claim reads them in
-- a scan of their own. The version number 13 is left to another change.
-- A plain CREATE INDEX blocks inserts while it builds; on a large outbox,
-- create them CONCURRENTLY by hand first (the upgrade notes say how).
CREATE INDEX IF NOT EXISTS idx_outbox_unkeyed_due ON outbox (scheduled_at, sequence)
    WHERE state = 'pending' AND key IS NULL;
CREATE INDEX IF NOT EXISTS idx_outbox_empty_key_due ON outbox (scheduled_at, sequence)
    WHERE state = 'pending' AND key = '';
