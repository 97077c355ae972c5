-- The attempts of the outbox rows $1 in the delivery ledger, newest
-- first, at most $2: the rows of one message (the row and the deliveries
-- of its fan-out), found through idx_outbox_attempts_outbox.
SELECT id, outbox_id::text, message_id::text, destination, attempt, started_at, duration_ms, outcome,
    COALESCE(failure_class, ''), COALESCE(status, ''), COALESCE(answer, ''), recorded_at
FROM {{.Ledger.Table}}
WHERE outbox_id = ANY($1::uuid[])
ORDER BY started_at DESC, id DESC
LIMIT $2
