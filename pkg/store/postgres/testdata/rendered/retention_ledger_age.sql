-- Deletes up to $2 rows of the delivery ledger whose attempt started more
-- than $1 milliseconds ago, oldest first through idx_outbox_attempts_started.
-- A row of the ledger is final when it is written, so its age alone
-- decides; the outbox row it names may be gone already, or still pending.
DELETE FROM "outbox_attempts"
WHERE id IN (
    SELECT id FROM "outbox_attempts"
    WHERE started_at < now() - $1 * interval '1 millisecond'
    LIMIT $2)
