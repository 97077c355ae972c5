-- The batch form of inbox_insert_partitioned.sql, with the arrays of
-- inbox_insert_batch.sql. It runs after inbox_key_lock_batch.sql in the
-- same transaction. Of the rows of one key in the batch, the first in the
-- order of the batch (ord) is kept, and it is stored only when no
-- partition holds the key yet; RETURNING names the ids that were stored.
-- created_at is stamped once for the batch, as in inbox_insert_batch.sql.
WITH r AS (
    SELECT DISTINCT ON (u.source, u.idempotency_key) u.*
    FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
                $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                $11::text[])
         WITH ORDINALITY AS u(id, source, idempotency_key, aggregate_id, event_type,
                              payload, headers, correlation_id, consumption, state,
                              last_error, ord)
    ORDER BY u.source, u.idempotency_key, u.ord
)
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}, {{.I.CreatedAt}}
)
SELECT r.id, r.source, r.idempotency_key, r.aggregate_id, r.event_type,
       r.payload::jsonb, r.headers::jsonb, r.correlation_id, r.consumption, r.state,
       r.last_error, (SELECT clock_timestamp())
FROM r
WHERE NOT EXISTS (
    SELECT 1 FROM {{.I.Table}} i
    WHERE i.{{.I.Source}} = r.source AND i.{{.I.IdempotencyKey}} = r.idempotency_key)
ORDER BY r.ord
RETURNING {{.I.ID}}::text
