-- The claim of an outbox without the lane columns (a custom table made
-- before migration V16): the key alone is the unit of order, as before
-- lanes, and no row has a destination or an origin. outbox_claim.sql is
-- the claim of lanes; this one takes the same parameters ($5, the
-- cursor's destination, is always '' here and only typed).
--
-- Claims up to $1 due rows. A keyed row is claimable only as the head of
-- its key: the pending or processing row of that key with the lowest
-- sequence. The keyed part walks the distinct keys of the partial
-- (key, sequence) index one probe per key, starting after the cursor $2
-- and wrapping around, so its cost follows the number of keys, not the
-- depth of their backlog. Rows without a key (null or '') come from the
-- partial (scheduled_at, sequence) indexes of due unkeyed rows (V14), the
-- earliest due first, so the scan starts at a due row and never walks the
-- rows that wait for a later time: a paused destination's deferred
-- backlog costs the claims of the other destinations nothing. They are
-- locked as they are read (SKIP LOCKED), so a concurrent claim of another
-- replica takes the rows after them instead of colliding on the same
-- ones. CTEs are read lazily: the LIMIT of
-- candidates stops both scans, and no row is locked that is not claimed.
-- Keyed heads are locked afterwards with SKIP LOCKED; the state re-check
-- after the lock drops a row that a concurrent claim took first. $4 is
-- the nullable clock (the "now" partial of partials.sql, written out so
-- that this template renders on its own): NULL reads the database clock.
WITH RECURSIVE unused AS (SELECT $5::text), after_cursor AS (
    (SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
     FROM {{.O.Table}}
     WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > $2
     ORDER BY {{.O.Key}}, {{.O.Sequence}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.id, nxt.st, nxt.due
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
        FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > a.k
        ORDER BY {{.O.Key}}, {{.O.Sequence}}
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
     FROM {{.O.Table}}
     WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > '' AND {{.O.Key}} <= $2
     ORDER BY {{.O.Key}}, {{.O.Sequence}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.id, nxt.st, nxt.due
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
        FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > b.k AND {{.O.Key}} <= $2
        ORDER BY {{.O.Key}}, {{.O.Sequence}}
        LIMIT 1) nxt
), keyed AS (
    (SELECT id FROM after_cursor WHERE st = 'pending' AND due <= COALESCE($4::timestamptz, now()))
    UNION ALL
    (SELECT id FROM before_cursor WHERE st = 'pending' AND due <= COALESCE($4::timestamptz, now()))
    LIMIT $1
), unkeyed_null AS (
    SELECT {{.O.ID}} AS id FROM {{.O.Table}}
    WHERE {{.O.State}} = 'pending' AND {{.O.Key}} IS NULL
      AND {{.O.ScheduledAt}} <= COALESCE($4::timestamptz, now())
    ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), unkeyed_empty AS (
    SELECT {{.O.ID}} AS id FROM {{.O.Table}}
    WHERE {{.O.State}} = 'pending' AND {{.O.Key}} = ''
      AND {{.O.ScheduledAt}} <= COALESCE($4::timestamptz, now())
    ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), unkeyed AS (
    (SELECT id FROM unkeyed_null) UNION ALL (SELECT id FROM unkeyed_empty)
    LIMIT $1
), candidates AS (
    {{if .KeyedFirst}}(SELECT id FROM keyed) UNION ALL (SELECT id FROM unkeyed){{else}}(SELECT id FROM unkeyed) UNION ALL (SELECT id FROM keyed){{end}}
    LIMIT $1
), locked AS (
    -- One primary key probe per candidate, whatever the statistics say;
    -- the state re-check after the lock drops a row that a concurrent
    -- claim took first.
    SELECT l.id FROM candidates c
    CROSS JOIN LATERAL (
        SELECT {{.O.ID}} AS id FROM {{.O.Table}}
        WHERE {{.O.ID}} = c.id
          AND {{.O.State}} = 'pending' AND {{.O.ScheduledAt}} <= COALESCE($4::timestamptz, now())
        FOR UPDATE SKIP LOCKED) l
)
-- The lease starts when the row is updated (clock_timestamp()), not when
-- the statement began, so the claim's own time is not taken out of it.
UPDATE {{.O.Table}} o
SET {{.O.State}} = 'processing',
    {{.O.ClaimToken}} = gen_random_uuid(),
    {{.O.ClaimedAt}} = COALESCE($4::timestamptz, clock_timestamp()),
    {{.O.LeaseExpiresAt}} = COALESCE($4::timestamptz, clock_timestamp()) + $3 * interval '1 millisecond',
    {{.O.UpdatedAt}} = COALESCE($4::timestamptz, now())
WHERE o.{{.O.ID}} = ANY (ARRAY(SELECT id FROM locked))
RETURNING o.{{.O.ID}}::text, o.{{.O.Topic}}, o.{{.O.Key}}, o.{{.O.AggregateType}}, o.{{.O.Payload}}::text,
          o.{{.O.Headers}}::text, o.{{.O.Attempt}}, o.{{.O.MaxAttempts}}, o.{{.O.CreatedAt}},
          o.{{.O.Sequence}}, o.{{.O.ClaimToken}}::text, ''::text, NULL::text
