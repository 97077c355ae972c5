-- Deletes up to $2 sent or dead outbox rows whose last state change is
-- older than $1 milliseconds. Pending and processing rows never match.
DELETE FROM "qb_outbox"
WHERE "ob_id" IN (
    SELECT "ob_id" FROM "qb_outbox"
    WHERE "ob_state" IN ('sent', 'dead')
      AND "ob_updatedat" < now() - $1 * interval '1 millisecond'
    LIMIT $2)
