-- Stores one received message in a partitioned inbox, unless a row of
-- its (source, idempotency_key) exists in any partition; the arguments
-- are those of inbox_insert.sql. It runs after inbox_key_lock.sql in the
-- same transaction, which makes the look-up and the insert one step for
-- the key: a repeat inserts nothing and returns no row. The look-up
-- reads idx_inbox_source_idempotency of each partition, one probe per
-- partition. created_at is stamped as in inbox_insert.sql, after the
-- aggregate's lock.
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}, {{.I.CreatedAt}}
)
SELECT COALESCE($1::uuid, gen_random_uuid()), $2::text, $3::text, $4::text, $5::text,
       $6::text::jsonb, $7::text::jsonb, $8::text, $9::text, $10::text,
       $11::text, clock_timestamp()
WHERE NOT EXISTS (
    SELECT 1 FROM {{.I.Table}}
    WHERE {{.I.Source}} = $2::text AND {{.I.IdempotencyKey}} = $3::text)
RETURNING {{.I.ID}}::text
