-- Forwards claimed push rows: marks each inbox row processed, fenced
-- (partials.sql) on its token and a live lease, and inserts its outbox
-- row in the same batch and transaction, so a row whose fence failed
-- gets no outbox row; the twin of the PostgreSQL inbox_relay_forward.sql.
-- A claim takes at most one row per aggregate, so the rows of one batch
-- never share a key and the insert order decides no key's order; the
-- rows still go in created_at order.
--
-- T-SQL points: a batch of three statements (T-SQL has no data-modifying
-- CTE): UPDATE ... OUTPUT ... INTO a table variable, INSERT ... SELECT
-- from it, then SELECT of the marked ids; SET NOCOUNT ON so that the ids
-- are the batch's only result; SET XACT_ABORT ON so that any error rolls
-- the whole batch back; the rows as one JSON array (@p1) through
-- OPENJSON; WITH (UPDLOCK, ROWLOCK); @p2 is max_attempts of the new
-- rows, @p3 the nullable clock.
SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @marked TABLE (id UNIQUEIDENTIFIER PRIMARY KEY, aggregate_id NVARCHAR(255), payload NVARCHAR(MAX),
    created_at DATETIME2, topic NVARCHAR(255), headers NVARCHAR(MAX));
WITH d AS (
    SELECT id, token, topic, headers
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token',
        topic NVARCHAR(255) '$.topic', headers NVARCHAR(MAX) '$.headers' AS JSON)
)
UPDATE i
SET {{.I.State}} = 'processed',
    {{.I.ProcessedAt}} = {{template "now" "@p3"}}
OUTPUT inserted.{{.I.ID}}, inserted.{{.I.AggregateID}}, inserted.{{.I.Payload}}, inserted.{{.I.CreatedAt}},
       d.topic, d.headers
INTO @marked (id, aggregate_id, payload, created_at, topic, headers)
FROM {{.I.Table}} AS i WITH (UPDLOCK, ROWLOCK)
JOIN d ON i.{{.I.ID}} = d.id
WHERE {{template "fence_holds" args "T" .I "A" "i" "Now" "@p3"}};
INSERT INTO {{.O.Table}} ({{.O.Topic}}, {{.O.Key}}, {{.O.Payload}}, {{.O.Headers}}, {{.O.MaxAttempts}})
SELECT m.topic, m.aggregate_id, m.payload, m.headers, @p2
FROM @marked AS m
ORDER BY m.created_at, m.id;
SELECT LOWER(CONVERT(NVARCHAR(36), id)) FROM @marked;
