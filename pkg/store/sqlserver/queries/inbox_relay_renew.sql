-- Extends the relay leases still held, fenced (partials.sql); the twin of
-- the PostgreSQL inbox_relay_renew.sql.
--
-- T-SQL points: the leases as one JSON array (@p1) through OPENJSON;
-- WITH (UPDLOCK, ROWLOCK); OUTPUT inserted.id; DATEADD for the expiry
-- (@p2 ms after SYSUTCDATETIME() or the clock @p3). A deadlock with a
-- forward (1205) is run again by the store.
WITH d AS (
    SELECT id, token
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token')
)
UPDATE i
SET {{.I.LeaseExpiresAt}} = {{template "after" args "Ms" "@p2" "Now" "@p3"}}
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ID}}))
FROM {{.I.Table}} AS i WITH (UPDLOCK, ROWLOCK)
JOIN d ON i.{{.I.ID}} = d.id
WHERE {{template "fence_holds" args "T" .I "A" "i" "Now" "@p3"}}
