-- The claim of an outbox without the lane columns (a custom table made
-- before migration V16): the key alone is the unit of order, as before
-- lanes, and no row has a destination or an origin. outbox_claim.sql is
-- the claim of lanes; this one keeps its shape and its parameters (@p5 is
-- not used).
--
-- Claims up to @p1 due rows; the T-SQL twin of the PostgreSQL
-- outbox_claim.sql. It runs after outbox_claim_lock in the same
-- transaction, so outbox claims of every replica run one after another.
-- A keyed row is claimable only as the head of its key: the pending or
-- processing row of that key with the lowest sequence.
--
-- The keyed part walks the distinct keys of the filtered
-- idx_outbox_key_sequence ([key], sequence) index one seek per key,
-- starting after the cursor @p2 and wrapping around, so its cost follows
-- the number of keys, not the depth of their backlog. T-SQL allows no
-- TOP in the recursive member of a CTE; ROW_NUMBER() ... = 1 over the
-- rows after the previous key is the allowed form of the same "next
-- key" seek. The walk reads without READPAST: a head that another
-- statement has locked must be waited for, never skipped, or the row
-- after it would pass for the head.
--
-- Rows without a key (null or '') come from the filtered (scheduled_at,
-- sequence) indexes of pending unkeyed rows (V14), the earliest due
-- first, so the scan starts at a due row and never walks the rows that
-- wait for a later time (a paused destination's deferred backlog).
-- SQL Server compares strings with trailing blanks ignored and,
-- under the default collation, without case, so keys that differ only in
-- those count as one key here: they keep one order together, which
-- never breaks the order of either.
--
-- T-SQL points: recursive CTE with OPTION (MAXRECURSION 0), TOP (@p1),
-- WITH (UPDLOCK, READPAST, ROWLOCK) on the rows taken, NEWID() for the
-- token, OUTPUT inserted.* instead of RETURNING, DATETIME2 lease math
-- through DATEADD (the "after" partial), UNIQUEIDENTIFIER read back as
-- lower-case text. @p3 is the lease in milliseconds, @p4 the nullable
-- clock (the "now" partial).
WITH after_cursor AS (
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
), unkeyed_null AS (
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
       LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.ClaimToken}})), N'', CAST(NULL AS NVARCHAR(36))
FROM {{.O.Table}} AS o WITH (UPDLOCK, READPAST, ROWLOCK)
JOIN candidates AS c ON o.{{.O.ID}} = c.id
WHERE o.{{.O.State}} = 'pending' AND o.{{.O.ScheduledAt}} <= {{template "now" "@p4"}}
OPTION (MAXRECURSION 0)
