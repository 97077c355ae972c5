-- Extends the leases still held, fenced (partials.sql) like every
-- terminal write; the twin of the PostgreSQL outbox_renew.sql.
--
-- T-SQL points: the leases as one JSON array (@p1) through OPENJSON;
-- WITH (UPDLOCK, ROWLOCK); OUTPUT inserted.id; the new expiry through
-- DATEADD from SYSUTCDATETIME() (or the clock @p3) plus @p2 ms. A
-- deadlock with an outcome write (1205) is run again by the store.
WITH d AS (
    SELECT id, token
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token')
)
UPDATE o
SET {{.O.LeaseExpiresAt}} = {{template "after" args "Ms" "@p2" "Now" "@p3"}}
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.ID}}))
FROM {{.O.Table}} AS o WITH (UPDLOCK, ROWLOCK)
JOIN d ON o.{{.O.ID}} = d.id
WHERE {{template "fence_holds" args "T" .O "A" "o" "Now" "@p3"}}
