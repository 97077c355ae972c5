-- Marks claimed push rows dead (a topic that rendered empty), fenced
-- (partials.sql); the twin of the PostgreSQL inbox_relay_dead.sql.
--
-- T-SQL points: the marks as one JSON array (@p1) through OPENJSON;
-- WITH (UPDLOCK, ROWLOCK); OUTPUT inserted.id; @p2 is the nullable clock.
WITH d AS (
    SELECT id, token, error
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token', error NVARCHAR(MAX) '$.error')
)
UPDATE i
SET {{.I.State}} = 'dead',
    {{.I.LastError}} = d.error,
    {{.I.ClaimToken}} = NULL,
    {{.I.LeaseExpiresAt}} = NULL
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ID}}))
FROM {{.I.Table}} AS i WITH (UPDLOCK, ROWLOCK)
JOIN d ON i.{{.I.ID}} = d.id
WHERE {{template "fence_holds" args "T" .I "A" "i" "Now" "@p2"}}
