-- Returns push rows whose relay lease expired to pending. Pull rows are
-- left to the pull claim, which takes over expired leases itself. Rows
-- are locked in id order and a row another statement holds is skipped,
-- as in the outbox reclaim step.
--
-- Each expired relay claim counts as an attempt of the row: a relay died
-- or stalled while it held the row. A row that no relay ever finishes (it
-- crashes or stalls every relay that takes it) would otherwise return to
-- pending for ever and hold back its aggregate; once its attempt reaches
-- $2 (inbox.relay.maxAttempts; 0 never) it goes dead with a reason.
WITH expired AS MATERIALIZED (
    SELECT "ib_id" AS id
    FROM "qb_inbox"
    WHERE "ib_state" = 'processing'
      AND "ib_consumption" = 'push'
      AND "ib_leaseexpiresat" < COALESCE($1::timestamptz, now())
    ORDER BY "ib_id"
    FOR UPDATE SKIP LOCKED
)
UPDATE "qb_inbox" i
SET "ib_state" = CASE WHEN $2::int > 0 AND i."ib_attempt" + 1 >= $2::int THEN 'dead' ELSE 'pending' END,
    "ib_attempt" = i."ib_attempt" + 1,
    "ib_lasterror" = CASE WHEN $2::int > 0 AND i."ib_attempt" + 1 >= $2::int
        THEN 'The relay claim of this row expired ' || (i."ib_attempt" + 1) || ' times (inbox.relay.maxAttempts is ' || $2::int || '): no relay finished it, so it no longer holds back its aggregate'
        ELSE i."ib_lasterror" END,
    "ib_claimtoken" = CASE WHEN $2::int > 0 AND i."ib_attempt" + 1 >= $2::int THEN NULL ELSE i."ib_claimtoken" END,
    "ib_leaseexpiresat" = NULL
FROM expired
WHERE i."ib_id" = expired.id
  AND i."ib_state" = 'processing'
  AND i."ib_leaseexpiresat" < COALESCE($1::timestamptz, now())
