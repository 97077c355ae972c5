-- Moves sent and dead rows back to pending for the admin replay, at most
-- $5 rows per statement: the route runs it batch after batch, each its own
-- short transaction, so a wide filter never locks or rewrites the whole
-- table in one UPDATE. Every filter is optional (NULL skips it) and they
-- combine with AND; the state condition is always there, also on the
-- outer UPDATE, so no filter can move a waiting or running row, and a row
-- that a batch moved is pending and no later batch takes it. The row
-- keeps its id, sequence, payload and headers. The statement counts the
-- move first (the "requeued" partial).
WITH requeued AS (
    INSERT INTO "queuebox_requeues" AS rq (queue, requeues) VALUES ('outbox', 1)
    ON CONFLICT (queue) DO UPDATE SET requeues = rq.requeues + 1
    RETURNING 1 AS one)
UPDATE "qb_outbox"
SET "ob_state" = 'pending',
    "ob_attempt" = 0,
    "ob_scheduledat" = now(),
    "ob_lasterror" = NULL,
    "ob_claimedat" = NULL,
    "ob_claimtoken" = NULL,
    "ob_leaseexpiresat" = NULL,
    "ob_updatedat" = now()
WHERE "ob_state" IN ('sent', 'dead')
  AND "ob_id" IN (
    SELECT "ob_id"
    FROM "qb_outbox"
    WHERE "ob_state" IN ('sent', 'dead')
      AND ($1::uuid[] IS NULL OR "ob_id" = ANY($1))
      AND ($2::text[] IS NULL OR "ob_topic" = ANY($2))
      AND ($3::timestamptz IS NULL OR "ob_createdat" > $3)
      AND ($4::timestamptz IS NULL OR "ob_createdat" < $4) AND EXISTS (SELECT 1 FROM requeued)
    LIMIT $5
    FOR UPDATE SKIP LOCKED)
