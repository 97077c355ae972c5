-- Deletes up to $2 sent or dead outbox rows whose last state change is
-- older than $1 milliseconds. Pending and processing rows never match.
-- On a partitioned outbox the row's created_at is bounded too (a row is
-- changed after it is made): PostgreSQL then leaves out, as the statement
-- starts, every partition newer than the age, which holds no row to
-- delete. Without that bound the last batch of each cycle, the one that
-- comes back short, read every recent partition to the end; under a
-- backlog that kept old partitions from being dropped, for seconds.
DELETE FROM "qb_outbox"
WHERE "ob_id" IN (
    SELECT "ob_id" FROM "qb_outbox"
    WHERE "ob_state" IN ('sent', 'dead')
      AND "ob_updatedat" < now() - $1 * interval '1 millisecond'
    LIMIT $2)
