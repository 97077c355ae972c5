-- Stores many received messages in one statement and one commit, the
-- twin of the PostgreSQL inbox_insert_batch.sql. @p1 is a JSON array with
-- one object per row, in the order of the batch: ord (its place), id,
-- source, idempotency_key, aggregate_id, event_type, payload (text),
-- headers (text), correlation_id, consumption, state, last_error.
--
-- Of two rows of one (source, idempotency_key) in the batch only the
-- first (ROW_NUMBER by ord) is inserted; the NOT EXISTS probe under
-- UPDLOCK, HOLDLOCK keeps out keys stored before or by a concurrent
-- insert, as in inbox_insert.sql. A unique violation that still slips
-- through fails the whole statement, which the store then repeats row by
-- row. The JSON columns are wider than the table's, so that an overlong
-- value is refused by the insert (as in inbox_insert.sql), not cut by
-- OPENJSON. OUTPUT names the ids that were stored; a missing one is a
-- duplicate.
--
-- Order: a uniqueidentifier does not sort by its leading bytes, so a
-- time-ordered id cannot order the rows of one commit here. Instead each
-- row's created_at is the statement's GETUTCDATE() plus 100 ns per place
-- in the batch (DATETIME2 keeps 100 ns), and the relay's (created_at,
-- id) order is the order of the batch. The offsets (50 µs for 500 rows)
-- are far below the time that the statement and its commit take, so a
-- later batch never sorts before them.
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}, {{.I.CreatedAt}}
)
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ID}}))
SELECT r.id, r.source, r.idempotency_key, r.aggregate_id, r.event_type,
       r.payload, r.headers, r.correlation_id, r.consumption, r.state,
       r.last_error, DATEADD(NANOSECOND, 100 * r.ord, CAST(GETUTCDATE() AS DATETIME2))
FROM (
    SELECT j.*, ROW_NUMBER() OVER (PARTITION BY j.source, j.idempotency_key ORDER BY j.ord) AS nth
    FROM OPENJSON(@p1) WITH (
        ord INT '$.ord', id UNIQUEIDENTIFIER '$.id',
        source NVARCHAR(4000) '$.source', idempotency_key NVARCHAR(4000) '$.idempotency_key',
        aggregate_id NVARCHAR(4000) '$.aggregate_id', event_type NVARCHAR(4000) '$.event_type',
        payload NVARCHAR(MAX) '$.payload', headers NVARCHAR(MAX) '$.headers',
        correlation_id NVARCHAR(4000) '$.correlation_id', consumption NVARCHAR(4000) '$.consumption',
        state NVARCHAR(4000) '$.state', last_error NVARCHAR(MAX) '$.last_error') AS j
) AS r
WHERE r.nth = 1 AND NOT EXISTS (
    SELECT 1 FROM {{.I.Table}} WITH (UPDLOCK, HOLDLOCK)
    WHERE {{.I.Source}} = r.source AND {{.I.IdempotencyKey}} = r.idempotency_key)
