-- The batch form of inbox_key_lock.sql: the locks of every (source,
-- idempotency_key) of a batch ($1 sources, $2 keys), taken in the order
-- of their hashes, so that batches with overlapping keys wait for each
-- other in one order and never in a cycle.
SELECT pg_advisory_xact_lock(hashtext('queuebox.inbox.key'), k.h)
FROM (
    SELECT DISTINCT hashtext(u.source || chr(10) || u.idempotency_key) AS h
    FROM unnest($1::text[], $2::text[]) AS u(source, idempotency_key)
    ORDER BY 1
) AS k
