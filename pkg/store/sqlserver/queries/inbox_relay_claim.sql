-- Claims up to @p1 push rows for the relay; the T-SQL twin of the
-- PostgreSQL inbox_relay_claim.sql (its cost bound of V12). It runs
-- after inbox_relay_lock in the same transaction, so relay claims of
-- every replica run one after another and each sees the claims before it.
--
-- A row with an aggregate is claimable only as the head of its aggregate:
-- the first pending push row in (created_at, id) order, while no push row
-- of that aggregate (of any source) is processing. The keyed part walks
-- the aggregates through the filtered idx_inbox_push_heads
-- (aggregate_id, state, created_at, id), one seek per aggregate, starting
-- after the cursor @p5 and wrapping around: the first entry of an
-- aggregate is its head when it is pending (pending sorts before
-- processing). T-SQL allows no TOP in the recursive member of a CTE;
-- ROW_NUMBER() ... = 1 over the entries after the previous aggregate is
-- the allowed form of the same seek. The walk reads without READPAST, so
-- a locked head is waited for, never passed over. Rows without an
-- aggregate come from idx_inbox_push_unkeyed in created_at order.
--
-- Pull rows are never touched, nor rows of a source missing from @p3 (a
-- JSON array of the configured source names).
--
-- T-SQL points: recursive CTE with OPTION (MAXRECURSION 0); TOP (@p1);
-- OPENJSON for the source list; WITH (UPDLOCK, READPAST, ROWLOCK) on the
-- rows taken; NEWID() for the token; OUTPUT inserted.*; the lease
-- through DATEADD (@p2 ms) from SYSUTCDATETIME() or the clock @p4.
WITH after_cursor AS (
    SELECT head.agg, head.st, head.id, head.src
    FROM (SELECT TOP (1) {{.I.AggregateID}} AS agg, {{.I.State}} AS st, {{.I.ID}} AS id, {{.I.Source}} AS src
          FROM {{.I.Table}}
          WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} IN ('pending', 'processing') AND {{.I.AggregateID}} > @p5
          ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}) AS head
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id, nxt.src
    FROM (SELECT i.{{.I.AggregateID}} AS agg, i.{{.I.State}} AS st, i.{{.I.ID}} AS id, i.{{.I.Source}} AS src,
                 ROW_NUMBER() OVER (ORDER BY i.{{.I.AggregateID}}, i.{{.I.State}}, i.{{.I.CreatedAt}}, i.{{.I.ID}}) AS rn
          FROM after_cursor AS a
          JOIN {{.I.Table}} AS i ON i.{{.I.AggregateID}} > a.agg
          WHERE i.{{.I.Consumption}} = 'push' AND i.{{.I.State}} IN ('pending', 'processing')) AS nxt
    WHERE nxt.rn = 1
), before_cursor AS (
    SELECT head.agg, head.st, head.id, head.src
    FROM (SELECT TOP (1) {{.I.AggregateID}} AS agg, {{.I.State}} AS st, {{.I.ID}} AS id, {{.I.Source}} AS src
          FROM {{.I.Table}}
          WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} IN ('pending', 'processing')
            AND {{.I.AggregateID}} IS NOT NULL AND {{.I.AggregateID}} <= @p5
          ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}) AS head
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id, nxt.src
    FROM (SELECT i.{{.I.AggregateID}} AS agg, i.{{.I.State}} AS st, i.{{.I.ID}} AS id, i.{{.I.Source}} AS src,
                 ROW_NUMBER() OVER (ORDER BY i.{{.I.AggregateID}}, i.{{.I.State}}, i.{{.I.CreatedAt}}, i.{{.I.ID}}) AS rn
          FROM before_cursor AS b
          JOIN {{.I.Table}} AS i ON i.{{.I.AggregateID}} > b.agg AND i.{{.I.AggregateID}} <= @p5
          WHERE i.{{.I.Consumption}} = 'push' AND i.{{.I.State}} IN ('pending', 'processing')) AS nxt
    WHERE nxt.rn = 1
), keyed AS (
    SELECT TOP (@p1) h.id
    FROM (SELECT * FROM after_cursor UNION ALL SELECT * FROM before_cursor) AS h
    WHERE h.st = 'pending'
      AND h.src IN (SELECT [value] FROM OPENJSON(@p3))
      -- One seek of the aggregate's processing entries in the same index.
      AND NOT EXISTS (
          SELECT 1 FROM {{.I.Table}} AS busy
          WHERE busy.{{.I.Consumption}} = 'push' AND busy.{{.I.State}} IN ('pending', 'processing')
            AND busy.{{.I.AggregateID}} = h.agg AND busy.{{.I.State}} = 'processing')
), unkeyed AS (
    SELECT TOP (@p1) {{.I.ID}} AS id FROM {{.I.Table}} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} = 'pending' AND {{.I.AggregateID}} IS NULL
      AND {{.I.Source}} IN (SELECT [value] FROM OPENJSON(@p3))
    ORDER BY {{.I.CreatedAt}}, {{.I.ID}}
), candidates AS (
    SELECT TOP (@p1) c.id
    FROM ({{if .KeyedFirst}}SELECT id, 0 AS turn FROM keyed UNION ALL SELECT id, 1 AS turn FROM unkeyed{{else}}SELECT id, 0 AS turn FROM unkeyed UNION ALL SELECT id, 1 AS turn FROM keyed{{end}}) AS c
    ORDER BY c.turn
)
UPDATE i
SET {{.I.State}} = 'processing',
    {{.I.ClaimToken}} = NEWID(),
    {{.I.ClaimedAt}} = {{template "now" "@p4"}},
    {{.I.LeaseExpiresAt}} = {{template "after" args "Ms" "@p2" "Now" "@p4"}}
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ID}})), inserted.{{.I.Source}}, inserted.{{.I.IdempotencyKey}},
       inserted.{{.I.AggregateID}}, inserted.{{.I.EventType}}, inserted.{{.I.Headers}}, inserted.{{.I.CorrelationID}},
       inserted.{{.I.CreatedAt}}, LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ClaimToken}}))
FROM {{.I.Table}} AS i WITH (UPDLOCK, READPAST, ROWLOCK)
JOIN candidates AS c ON i.{{.I.ID}} = c.id
WHERE i.{{.I.State}} = 'pending'
OPTION (MAXRECURSION 0)
