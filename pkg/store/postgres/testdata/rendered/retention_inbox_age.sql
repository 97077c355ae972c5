-- Deletes up to $2 processed or dead inbox rows received more than $1
-- milliseconds ago. Pending and processing rows never match. On a
-- partitioned inbox the delete names each row's created_at and bounds it
-- as the search does, so PostgreSQL leaves out the partitions newer than
-- the age as the statement starts, for the delete as for the search.
DELETE FROM "qb_inbox"
WHERE "ib_id" IN (
    SELECT "ib_id" FROM "qb_inbox"
    WHERE "ib_state" IN ('processed', 'dead')
      AND "ib_createdat" < now() - $1 * interval '1 millisecond'
    LIMIT $2)
