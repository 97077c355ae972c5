-- Claims up to @p1 due rows; the T-SQL twin of the PostgreSQL
-- outbox_claim.sql. It runs after outbox_claim_lock in the same
-- transaction, so outbox claims of every replica run one after another.
-- A keyed row is claimable only as the head of its lane: a lane is
-- (key, destination), and its head is the pending or processing row of
-- the lane with the lowest sequence. A keyed row gets its destination
-- before any claim (outbox_assign.sql); until then it is in no lane and
-- holds back the later rows of its key, whatever their destination,
-- since its own lane is not known yet.
--
-- The keyed part walks the lanes of the filtered idx_outbox_lane_sequence
-- ([key], destination, sequence) index one seek per lane, starting
-- after the cursor (@p2, @p5) and wrapping around, so its cost follows
-- the number of lanes, not the depth of their backlog: a failing
-- destination's backlog costs one seek per lane. T-SQL has no row-value
-- comparison, and an OR of two ranges (key after, or same key and
-- destination after) is a seek the optimizer may not build from values
-- of the previous recursion row, leaving a scan of the current lane's
-- backlog. So each step is one of two single-range seeks instead, each
-- its own recursive member: from every lane, the next lane of its key
-- (prefix [key], range on destination); from the first lane the walk
-- reached in a key (first_lane = 1), the first lane of the next key
-- (range on [key]). Every lane is reached once, by one of the two.
-- T-SQL allows no TOP in a recursive member; ROW_NUMBER() ... = 1 is the
-- allowed form of the same seek, and SQL Server runs a recursive member
-- once per row it reads back (a stack spool), so the numbering restarts
-- for each lane. The next-key member comes first: its row is stacked
-- first and read back last, so a key's lanes are walked before the next
-- key. The lane that closes the walk before the cursor is checked on the
-- one row each seek returns, never inside the seek. Every seek repeats
-- the index filter (state and [key] > '') word for word, so that the
-- optimizer can match the filtered index. The walk reads without
-- READPAST: a head that another statement has locked must be waited
-- for, never skipped, or the row after it would pass for the head.
--
-- Rows without a key (null or '') come from the filtered (scheduled_at,
-- sequence) indexes of pending unkeyed rows (V14), the earliest due
-- first, so the scan starts at a due row and never walks the rows that
-- wait for a later time (a paused destination's deferred backlog).
-- SQL Server compares strings with trailing blanks ignored and,
-- under the default collation, without case, so keys (or destination
-- names) that differ only in those count as one here: they keep one
-- order together, which never breaks the order of either.
--
-- T-SQL points: recursive CTE with OPTION (MAXRECURSION 0), TOP (@p1),
-- -- An outbox without the lane columns (a custom table made before V16,
-- schema.Outbox.Lanes false) is claimed in key order instead, as before
-- lanes: its keyed part walks the distinct keys of the ([key], sequence)
-- index one seek per key and takes the head of each key; no row has a
-- destination or an origin, and @p5 is not used.
WITH (UPDLOCK, READPAST, ROWLOCK) on the rows taken, NEWID() for the
-- token, OUTPUT inserted.* instead of RETURNING, DATETIME2 lease math
-- through DATEADD (the "after" partial), UNIQUEIDENTIFIER read back as
-- lower-case text. @p3 is the lease in milliseconds, @p4 the nullable
-- clock (the "now" partial).
WITH {{if .O.Lanes}}after_cursor AS (
    -- The first lane of the first key after the cursor's key.
    SELECT head.k, head.d, head.id, head.st, head.due, head.seq, 1 AS first_lane
    FROM (SELECT TOP (1) {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id, {{.O.State}} AS st,
                 {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
          FROM {{.O.Table}}
          WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''
            AND {{.O.Key}} > @p2
          ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}) AS head
    UNION ALL
    -- The next lane of the cursor's own key.
    SELECT head.k, head.d, head.id, head.st, head.due, head.seq, 0 AS first_lane
    FROM (SELECT TOP (1) {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id, {{.O.State}} AS st,
                 {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
          FROM {{.O.Table}}
          WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''
            AND {{.O.Key}} = @p2 AND {{.O.Destination}} > @p5
          ORDER BY {{.O.Destination}}, {{.O.Sequence}}) AS head
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id, nxt.st, nxt.due, nxt.seq, 1 AS first_lane
    FROM (SELECT o.{{.O.Key}} AS k, o.{{.O.Destination}} AS d, o.{{.O.ID}} AS id, o.{{.O.State}} AS st,
                 o.{{.O.ScheduledAt}} AS due, o.{{.O.Sequence}} AS seq,
                 ROW_NUMBER() OVER (ORDER BY o.{{.O.Key}}, o.{{.O.Destination}}, o.{{.O.Sequence}}) AS rn
          FROM after_cursor AS a
          JOIN {{.O.Table}} AS o ON o.{{.O.Key}} > a.k
          WHERE a.first_lane = 1
            AND o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Key}} > '') AS nxt
    WHERE nxt.rn = 1
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id, nxt.st, nxt.due, nxt.seq, 0 AS first_lane
    FROM (SELECT o.{{.O.Key}} AS k, o.{{.O.Destination}} AS d, o.{{.O.ID}} AS id, o.{{.O.State}} AS st,
                 o.{{.O.ScheduledAt}} AS due, o.{{.O.Sequence}} AS seq,
                 ROW_NUMBER() OVER (ORDER BY o.{{.O.Destination}}, o.{{.O.Sequence}}) AS rn
          FROM after_cursor AS a
          JOIN {{.O.Table}} AS o ON o.{{.O.Key}} = a.k AND o.{{.O.Destination}} > a.d
          WHERE o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Key}} > '') AS nxt
    WHERE nxt.rn = 1
), before_cursor AS (
    -- The first lane of all, up to the cursor's lane.
    SELECT head.k, head.d, head.id, head.st, head.due, head.seq, 1 AS first_lane
    FROM (SELECT TOP (1) {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id, {{.O.State}} AS st,
                 {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
          FROM {{.O.Table}}
          WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''
            AND {{.O.Key}} <= @p2
          ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}) AS head
    WHERE head.k < @p2 OR head.d <= @p5
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id, nxt.st, nxt.due, nxt.seq, 1 AS first_lane
    FROM (SELECT o.{{.O.Key}} AS k, o.{{.O.Destination}} AS d, o.{{.O.ID}} AS id, o.{{.O.State}} AS st,
                 o.{{.O.ScheduledAt}} AS due, o.{{.O.Sequence}} AS seq,
                 ROW_NUMBER() OVER (ORDER BY o.{{.O.Key}}, o.{{.O.Destination}}, o.{{.O.Sequence}}) AS rn
          FROM before_cursor AS b
          JOIN {{.O.Table}} AS o ON o.{{.O.Key}} > b.k AND o.{{.O.Key}} <= @p2
          WHERE b.first_lane = 1
            AND o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Key}} > '') AS nxt
    WHERE nxt.rn = 1 AND (nxt.k < @p2 OR nxt.d <= @p5)
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id, nxt.st, nxt.due, nxt.seq, 0 AS first_lane
    FROM (SELECT o.{{.O.Key}} AS k, o.{{.O.Destination}} AS d, o.{{.O.ID}} AS id, o.{{.O.State}} AS st,
                 o.{{.O.ScheduledAt}} AS due, o.{{.O.Sequence}} AS seq,
                 ROW_NUMBER() OVER (ORDER BY o.{{.O.Destination}}, o.{{.O.Sequence}}) AS rn
          FROM before_cursor AS b
          JOIN {{.O.Table}} AS o ON o.{{.O.Key}} = b.k AND o.{{.O.Destination}} > b.d
          WHERE o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Key}} > '') AS nxt
    WHERE nxt.rn = 1 AND (nxt.k < @p2 OR nxt.d <= @p5)
), keyed AS (
    -- A routed lane's head is due and no row of its key waits for its
    -- destination with a lower sequence (one seek into the unrouted
    -- lane, [key] and ''). No ORDER BY: a sort would read the whole
    -- walk. The walk offers the lanes after the cursor first; the order
    -- only shares the turns out.
    SELECT TOP (@p1) h.id
    FROM (SELECT k, d, id, st, due, seq FROM after_cursor
          UNION ALL
          SELECT k, d, id, st, due, seq FROM before_cursor) AS h
    WHERE h.st = 'pending' AND h.d <> '' AND h.due <= {{template "now" "@p4"}}
      AND NOT EXISTS (
        SELECT 1 FROM {{.O.Table}} AS u
        WHERE u.{{.O.State}} IN ('pending', 'processing') AND u.{{.O.Key}} > ''
          AND u.{{.O.Key}} = h.k AND u.{{.O.Destination}} = '' AND u.{{.O.Sequence}} < h.seq)
{{else}}after_cursor AS (
    SELECT head.k, head.id, head.st, head.due
    FROM (SELECT TOP (1) {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
          FROM {{.O.Table}}
          WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > @p2
          ORDER BY {{.O.Key}}, {{.O.Sequence}}) AS head
    UNION ALL
    SELECT nxt.k, nxt.id, nxt.st, nxt.due
    FROM (SELECT o.{{.O.Key}} AS k, o.{{.O.ID}} AS id, o.{{.O.State}} AS st, o.{{.O.ScheduledAt}} AS due,
                 ROW_NUMBER() OVER (ORDER BY o.{{.O.Key}}, o.{{.O.Sequence}}) AS rn
          FROM after_cursor AS a
          JOIN {{.O.Table}} AS o ON o.{{.O.Key}} > a.k
          WHERE o.{{.O.State}} IN ('pending', 'processing')) AS nxt
    WHERE nxt.rn = 1
), before_cursor AS (
    SELECT head.k, head.id, head.st, head.due
    FROM (SELECT TOP (1) {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
          FROM {{.O.Table}}
          WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > '' AND {{.O.Key}} <= @p2
          ORDER BY {{.O.Key}}, {{.O.Sequence}}) AS head
    UNION ALL
    SELECT nxt.k, nxt.id, nxt.st, nxt.due
    FROM (SELECT o.{{.O.Key}} AS k, o.{{.O.ID}} AS id, o.{{.O.State}} AS st, o.{{.O.ScheduledAt}} AS due,
                 ROW_NUMBER() OVER (ORDER BY o.{{.O.Key}}, o.{{.O.Sequence}}) AS rn
          FROM before_cursor AS b
          JOIN {{.O.Table}} AS o ON o.{{.O.Key}} > b.k AND o.{{.O.Key}} <= @p2
          WHERE o.{{.O.State}} IN ('pending', 'processing')) AS nxt
    WHERE nxt.rn = 1
), keyed AS (
    -- No ORDER BY: a sort would read the whole walk. The walk offers the
    -- keys after the cursor first; the order only shares the turns out.
    SELECT TOP (@p1) heads.id
    FROM (SELECT id FROM after_cursor WHERE st = 'pending' AND due <= {{template "now" "@p4"}}
          UNION ALL
          SELECT id FROM before_cursor WHERE st = 'pending' AND due <= {{template "now" "@p4"}}) AS heads
{{end}}), unkeyed_null AS (
    SELECT TOP (@p1) {{.O.ID}} AS id FROM {{.O.Table}} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE {{.O.State}} = 'pending' AND {{.O.Key}} IS NULL
      AND {{.O.ScheduledAt}} <= {{template "now" "@p4"}}
    ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
), unkeyed_empty AS (
    SELECT TOP (@p1) {{.O.ID}} AS id FROM {{.O.Table}} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE {{.O.State}} = 'pending' AND {{.O.Key}} = ''
      AND {{.O.ScheduledAt}} <= {{template "now" "@p4"}}
    ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
), candidates AS (
    SELECT TOP (@p1) c.id
    FROM ({{if .KeyedFirst}}SELECT id, 0 AS turn FROM keyed
          UNION ALL SELECT id, 1 AS turn FROM unkeyed_null
          UNION ALL SELECT id, 2 AS turn FROM unkeyed_empty{{else}}SELECT id, 0 AS turn FROM unkeyed_null
          UNION ALL SELECT id, 1 AS turn FROM unkeyed_empty
          UNION ALL SELECT id, 2 AS turn FROM keyed{{end}}) AS c
    ORDER BY c.turn
)
-- The state re-check under the row lock drops a row that another
-- statement changed first; READPAST skips one it still holds.
UPDATE o
SET {{.O.State}} = 'processing',
    {{.O.ClaimToken}} = NEWID(),
    {{.O.ClaimedAt}} = {{template "now" "@p4"}},
    {{.O.LeaseExpiresAt}} = {{template "after" args "Ms" "@p3" "Now" "@p4"}},
    {{.O.UpdatedAt}} = {{template "now" "@p4"}}
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.ID}})), inserted.{{.O.Topic}}, inserted.{{.O.Key}},
       inserted.{{.O.AggregateType}}, inserted.{{.O.Payload}}, inserted.{{.O.Headers}}, inserted.{{.O.Attempt}},
       inserted.{{.O.MaxAttempts}}, inserted.{{.O.CreatedAt}}, inserted.{{.O.Sequence}},
       LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.ClaimToken}})),
       {{if .O.Lanes}}inserted.{{.O.Destination}}, LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.OriginID}})){{else}}N'', CAST(NULL AS NVARCHAR(36)){{end}}
FROM {{.O.Table}} AS o WITH (UPDLOCK, READPAST, ROWLOCK)
JOIN candidates AS c ON o.{{.O.ID}} = c.id
WHERE o.{{.O.State}} = 'pending' AND o.{{.O.ScheduledAt}} <= {{template "now" "@p4"}}
OPTION (MAXRECURSION 0)
