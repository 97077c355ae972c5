-- Finds the outcomes that an earlier try of the same write committed
-- although its answer never arrived; the twin of the PostgreSQL
-- outbox_written.sql. A sent, retried or deferred row that still carries
-- the outcome's token and shows the state (and, for a retry, the reason)
-- that the outcome sets was written by it; a deferral keeps last_error,
-- so its state alone confirms it. A dead mark clears the token, so a dead
-- row without one and with the outcome's reason confirms it.
--
-- T-SQL points: the outcomes as one JSON array (@p1) through OPENJSON;
-- IS NOT DISTINCT FROM is written out (SQL Server before 2022 lacks it).
WITH d AS (
    SELECT id, token, outcome, error
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token',
        outcome NVARCHAR(10) '$.outcome', error NVARCHAR(MAX) '$.error')
)
SELECT LOWER(CONVERT(NVARCHAR(36), o.{{.O.ID}}))
FROM {{.O.Table}} AS o
JOIN d ON o.{{.O.ID}} = d.id
WHERE (   (d.outcome = 'sent' AND o.{{.O.State}} = 'sent' AND o.{{.O.ClaimToken}} = d.token)
       OR (d.outcome = 'defer' AND o.{{.O.State}} = 'pending' AND o.{{.O.ClaimToken}} = d.token)
       OR (d.outcome IN ('dead', 'retry')
           AND o.{{.O.State}} = CASE d.outcome WHEN 'dead' THEN 'dead' ELSE 'pending' END
           AND ((d.outcome = 'dead' AND o.{{.O.ClaimToken}} IS NULL) OR (d.outcome = 'retry' AND o.{{.O.ClaimToken}} = d.token))
           AND (o.{{.O.LastError}} = d.error OR (o.{{.O.LastError}} IS NULL AND d.error IS NULL))))
