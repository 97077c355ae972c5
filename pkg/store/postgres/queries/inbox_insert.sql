-- Stores one received message. The unique constraint on (source,
-- idempotency_key) is the only deduplication: a repeat inserts nothing,
-- returns no row and never blocks longer than the first insert of the key
-- takes to commit. $1 is the row id; NULL lets the database choose one.
-- Payload and headers arrive as text and become JSONB here. created_at is
-- the time of the insert, after the aggregate's lock that the caller
-- takes first in the same transaction (inbox_aggregate_lock.sql), not
-- the time the transaction began: the rows of an aggregate then commit in
-- created_at order.
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}, {{.I.CreatedAt}}
)
VALUES (
    COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, $5,
    $6::text::jsonb, $7::text::jsonb, $8, $9, $10,
    $11, clock_timestamp()
)
ON CONFLICT ({{.I.Source}}, {{.I.IdempotencyKey}}) DO NOTHING
RETURNING {{.I.ID}}::text
