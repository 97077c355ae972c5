-- Stores one received message unless its source already holds the
-- idempotency key; the twin of the PostgreSQL inbox_insert.sql. T-SQL
-- has no ON CONFLICT DO NOTHING: the NOT EXISTS probe under
-- UPDLOCK, HOLDLOCK locks the (source, idempotency_key) range of the
-- unique constraint, so a concurrent insert of the same key waits for
-- this one and then finds the row; a unique violation that still slips
-- through (2601, 2627) counts as the same duplicate in the store. A
-- duplicate returns no row. @p1 is the row id; NULL lets NEWID() choose.
--
-- T-SQL points: INSERT ... OUTPUT inserted.id ... SELECT ... WHERE NOT
-- EXISTS; WITH (UPDLOCK, HOLDLOCK); payload and headers are NVARCHAR(MAX)
-- text as they arrive (the sources hand over JSON they parsed; the
-- column, unlike jsonb, would not refuse other text).
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}
)
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ID}}))
SELECT COALESCE(CAST(@p1 AS UNIQUEIDENTIFIER), NEWID()), @p2, @p3, @p4, @p5,
       @p6, @p7, @p8, @p9, @p10,
       @p11
WHERE NOT EXISTS (
    SELECT 1 FROM {{.I.Table}} WITH (UPDLOCK, HOLDLOCK)
    WHERE {{.I.Source}} = @p2 AND {{.I.IdempotencyKey}} = @p3)
