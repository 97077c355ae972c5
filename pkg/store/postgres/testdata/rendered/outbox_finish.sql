-- Writes the outcomes of many claimed rows in one statement. Each row is
-- fenced (partials.sql) on its id, the processing state, its claim token
-- and a live lease; a row missing from RETURNING lost its claim and keeps
-- the new owner's state. outcome: sent, retry (back to pending after
-- delay_ms, one attempt more), defer (back to pending after delay_ms with
-- attempt and last_error as they were: the destination could not take
-- the row, so no attempt was made) or dead. dest records the destination
-- of a row that was routed at its claim (one without a key); a row that
-- has one keeps it (an outbox without the lane columns records none). The fence locks the rows first, in id order, as the
-- renewal locks them: the writer and the renewal of one replica run on
-- two connections at once, and two statements that lock shared rows in
-- different orders deadlock.
--
-- With the delivery ledger written (Ledger.Write), the UPDATE becomes the
-- data-modifying CTE done, and the ledger CTE inserts one attempt for
-- each row it returns: the rows whose fence held, and no other, in the
-- same statement and transaction. $8 to $13 carry the attempt's facts
-- (attempt number, start in microseconds since the epoch with 0 for the
-- clock of $6, duration, failure class, status, answer; '' stores NULL).
-- The row gives the message id (its origin's for a fan-out delivery) and
-- the destination it now has. Without the ledger the statement is the
-- one of before.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $7::text[],
        $8::int[], $9::bigint[], $10::int[], $11::text[], $12::text[], $13::text[])
        AS d(id, token, outcome, delay_ms, error, dest, attempt, started_us, duration_ms, class, status, answer)
), owned AS MATERIALIZED (
    SELECT o."ob_id" AS id
    FROM "qb_outbox" o
    JOIN d ON o."ob_id" = d.id
    WHERE COALESCE(o."ob_state", '') = 'processing' AND o."ob_claimtoken" = d.token AND o."ob_leaseexpiresat" > COALESCE($6::timestamptz, now())
    ORDER BY o."ob_id"
    FOR UPDATE OF o
), done AS (
UPDATE "qb_outbox" o
SET "ob_state" = CASE WHEN d.outcome IN ('retry', 'defer') THEN 'pending' ELSE d.outcome END,
    "ob_attempt" = CASE d.outcome WHEN 'retry' THEN o."ob_attempt" + 1 ELSE o."ob_attempt" END,
    "ob_scheduledat" = CASE WHEN d.outcome IN ('retry', 'defer') THEN COALESCE($6::timestamptz, now()) + d.delay_ms * interval '1 millisecond'
                         ELSE o."ob_scheduledat" END,
    "ob_lasterror" = CASE WHEN d.outcome IN ('sent', 'defer') THEN o."ob_lasterror" ELSE d.error END,
    "ob_leaseexpiresat" = CASE WHEN d.outcome IN ('retry', 'defer', 'dead') THEN NULL ELSE o."ob_leaseexpiresat" END,
    "ob_claimtoken" = CASE WHEN d.outcome = 'dead' THEN NULL ELSE o."ob_claimtoken" END,
    "ob_destination" = CASE WHEN o."ob_destination" = '' THEN COALESCE(d.dest, '') ELSE o."ob_destination" END,
    "ob_updatedat" = COALESCE($6::timestamptz, now())
FROM d, owned
WHERE o."ob_id" = owned.id
  AND d.id = owned.id
  AND COALESCE(o."ob_state", '') = 'processing' AND o."ob_claimtoken" = d.token AND o."ob_leaseexpiresat" > COALESCE($6::timestamptz, now())
RETURNING o."ob_id" AS id,
    COALESCE(o."ob_originid", o."ob_id") AS message_id, o."ob_destination" AS destination,
    d.outcome, d.attempt, d.started_us, d.duration_ms, d.class, d.status, d.answer
), ledger AS (
    INSERT INTO "outbox_attempts" (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome,
        failure_class, status, answer)
    SELECT id, message_id, destination, attempt,
        COALESCE(timestamptz 'epoch' + NULLIF(started_us, 0) * interval '1 microsecond', COALESCE($6::timestamptz, now())),
        duration_ms, CASE outcome WHEN 'retry' THEN 'failed' WHEN 'defer' THEN 'deferred' ELSE outcome END,
        NULLIF(class, ''), NULLIF(status, ''), NULLIF(answer, '')
    FROM done
)
SELECT id::text FROM done
