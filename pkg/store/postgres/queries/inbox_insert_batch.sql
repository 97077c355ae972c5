-- Stores many received messages in one statement and one commit, the
-- batch form of inbox_insert.sql. Each array holds one column, one entry
-- per row, in the order of the batch ($1 ids, $2 sources, $3 keys, $4
-- aggregates, $5 event types, $6 payload texts, $7 header texts, $8
-- correlation ids, $9 consumptions, $10 states, $11 last errors).
--
-- The rows are inserted in (source, idempotency_key) order, and the rows
-- of one key in the order of the batch (ord), so of two rows of one key
-- the first is stored and the second meets the first's index entry: DO
-- NOTHING skips it like a repeat from another transaction. The key order
-- is what keeps concurrent batches of overlapping keys from deadlocking:
-- an insert that meets another transaction's uncommitted entry of its key
-- waits for that transaction, and batches that take their keys in one
-- order wait for each other in that order, never in a cycle (in the
-- batch's own order, two batches holding k1 and k2 each wait for the
-- other's). The insert order is not the relay's order, which comes from
-- created_at and id (below). RETURNING names the ids that were
-- stored; a row whose id is missing is a duplicate. Every row of the
-- batch shares one created_at, the time the insert began, after the
-- aggregates' locks that the caller takes first in the same transaction
-- (inbox_aggregate_lock.sql; the scalar subquery is evaluated once per
-- statement). The relay's (created_at, id) order among them is then the
-- order of their ids, which ingest makes time ordered (UUID version 7) in
-- the order of the batch.
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}, {{.I.CreatedAt}}
)
SELECT r.id, r.source, r.idempotency_key, r.aggregate_id, r.event_type,
       r.payload::jsonb, r.headers::jsonb, r.correlation_id, r.consumption, r.state,
       r.last_error, (SELECT clock_timestamp())
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
            $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
            $11::text[])
     WITH ORDINALITY AS r(id, source, idempotency_key, aggregate_id, event_type,
                          payload, headers, correlation_id, consumption, state,
                          last_error, ord)
ORDER BY r.source, r.idempotency_key, r.ord
ON CONFLICT ({{.I.Source}}, {{.I.IdempotencyKey}}) DO NOTHING
RETURNING {{.I.ID}}::text
