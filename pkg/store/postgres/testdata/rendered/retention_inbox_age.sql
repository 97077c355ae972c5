-- Deletes up to $2 processed or dead inbox rows received more than $1
-- milliseconds ago. Pending and processing rows never match.
DELETE FROM "qb_inbox"
WHERE "ib_id" IN (
    SELECT "ib_id" FROM "qb_inbox"
    WHERE "ib_state" IN ('processed', 'dead')
      AND "ib_createdat" < now() - $1 * interval '1 millisecond'
    LIMIT $2)
