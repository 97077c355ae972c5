-- Routes rows; the twin of the PostgreSQL outbox_assign.sql. Each row of
-- @p1 takes its destination dest when it has none yet, or, with a
-- reason, goes dead with it as last_error (no route matches its topic).
-- A row without a token must be pending (a keyed row, routed before any
-- claim); one with a token must be processing under that token and a
-- live lease (a row without a key, routed at its claim: the
-- "fence_holds" partial). The condition that the row has no destination
-- yet makes the batch idempotent: a second try, or another replica
-- routing the same row, changes nothing and adds no delivery. Then, for
-- each pair of @p2 whose origin row this batch routed, a delivery of
-- that row to the pair's destination is added (a fan-out). A delivery
-- copies what the receiver gets and the lane's place: key, sequence,
-- topic, payload, headers, aggregate type, max_attempts, scheduled_at
-- and created_at; it starts pending with attempt 0 and origin_id naming
-- the row. Columns of a custom table that are not mapped take their
-- defaults. @p3 is the nullable clock. Returns the ids routed.
--
-- T-SQL points: a batch of statements (T-SQL has no data-modifying CTE)
-- that the store runs in one transaction: the UPDATE writes the ids it
-- routed to a table variable (OUTPUT ... INTO), the INSERT reads the
-- routed rows back through it, and a last SELECT returns them. SET
-- NOCOUNT ON so that the ids are the batch's only result; SET XACT_ABORT
-- ON so that any error rolls the whole batch back. Both lists arrive as
-- JSON arrays read by OPENJSON ... WITH, since T-SQL has no array
-- parameters; an absent token or reason reads as NULL. The routed rows
-- are locked WITH (UPDLOCK, ROWLOCK) and checked after the lock, so a row
-- another statement routed or claimed first is left out. The sequence
-- goes into the delivery as a value, as the SEQUENCE default of V11
-- allows; a custom table whose sequence is an IDENTITY column refuses
-- it (error 544), so it can take no route with several destinations.
SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @routed TABLE (id UNIQUEIDENTIFIER PRIMARY KEY);
WITH d AS (
    SELECT id, dest, token, reason
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', dest NVARCHAR(200) '$.dest',
        token UNIQUEIDENTIFIER '$.token', reason NVARCHAR(MAX) '$.reason')
)
UPDATE o
SET {{.O.Destination}} = COALESCE(d.dest, ''),
    {{.O.State}} = CASE WHEN d.reason IS NOT NULL THEN 'dead' ELSE o.{{.O.State}} END,
    {{.O.LastError}} = CASE WHEN d.reason IS NOT NULL THEN d.reason ELSE o.{{.O.LastError}} END,
    {{.O.ClaimToken}} = CASE WHEN d.reason IS NOT NULL THEN NULL ELSE o.{{.O.ClaimToken}} END,
    {{.O.LeaseExpiresAt}} = CASE WHEN d.reason IS NOT NULL THEN NULL ELSE o.{{.O.LeaseExpiresAt}} END,
    {{.O.UpdatedAt}} = CASE WHEN d.reason IS NOT NULL THEN {{template "now" "@p3"}} ELSE o.{{.O.UpdatedAt}} END
OUTPUT inserted.{{.O.ID}} INTO @routed (id)
FROM {{.O.Table}} AS o WITH (UPDLOCK, ROWLOCK)
JOIN d ON o.{{.O.ID}} = d.id
WHERE o.{{.O.Destination}} = ''
  AND ((d.token IS NULL AND o.{{.O.State}} = 'pending')
       OR (d.token IS NOT NULL AND {{template "fence_holds" args "T" .O "A" "o" "Now" "@p3"}}));
INSERT INTO {{.O.Table}} ({{.O.ID}}, {{.O.Topic}}, {{.O.Key}}, {{.O.AggregateType}}, {{.O.Payload}},
    {{.O.Headers}}, {{.O.State}}, {{.O.Attempt}}, {{.O.MaxAttempts}}, {{.O.ScheduledAt}}, {{.O.CreatedAt}},
    {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.Destination}}, {{.O.OriginID}})
SELECT NEWID(), o.{{.O.Topic}}, o.{{.O.Key}}, o.{{.O.AggregateType}}, o.{{.O.Payload}},
    o.{{.O.Headers}}, 'pending', 0, o.{{.O.MaxAttempts}}, o.{{.O.ScheduledAt}}, o.{{.O.CreatedAt}},
    {{template "now" "@p3"}}, o.{{.O.Sequence}}, c.dest, o.{{.O.ID}}
FROM @routed AS r
JOIN {{.O.Table}} AS o ON o.{{.O.ID}} = r.id
JOIN OPENJSON(@p2) WITH (origin UNIQUEIDENTIFIER '$.origin', dest NVARCHAR(200) '$.dest') AS c
    ON c.origin = r.id;
SELECT LOWER(CONVERT(NVARCHAR(36), id)) FROM @routed;
