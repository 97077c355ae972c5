-- QueueBox pull claim, PostgreSQL.
--
-- Claims up to :batch rows of one consumption: pull source for one worker,
-- and returns them with their claim token.
--
-- Parameters (bind every one as a value, never build the text from them):
--   :source      text     the source name whose rows the worker takes
--   :batch       integer  the largest number of rows to claim
--   :lease_ms    integer  the lease duration in milliseconds
--   :cand_limit  integer  LEAST(GREATEST(3 * batch, 50), 500), bound on
--                         every call: the most candidates one claim reads
--
-- Returns, in claim order: id, source, idempotency_key, aggregate_id,
-- event_type, payload, headers, attempt, correlation_id, claim_token
-- (id, payload, headers and claim_token as text).
--
-- Run it alone in its own transaction, begun with
--   SET LOCAL enable_sort = off; SET LOCAL jit = off
-- (they hold for that transaction only), and commit before a handler
-- starts. Without the first the claim is correct, but on a partitioned
-- inbox (database.partitioning) a partition analyzed while few of its
-- rows were pending can make the planner read every due row of the
-- partition and sort it, where the claim wants the first :cand_limit.
-- The second follows from the first: with sorting discouraged, the
-- sorts the claim needs anyway put its estimated cost far above
-- jit_above_cost, and the server would compile the statement at every
-- claim, for longer than the claim takes.
--
-- A row is a candidate when it is pending and due (scheduled_at has
-- passed), or processing under a lease that expired (its worker died or
-- stalled; no separate reclaim step exists). The claim takes at most one
-- row per (source, aggregate_id), the first in (scheduled_at, created_at,
-- id) order, and none of an aggregate that already holds a processing row
-- under a live lease on this source. A row without an aggregate takes part
-- in no ordering.
--
-- Cost: the pending candidates are the first :cand_limit due rows of the
-- source in scheduled_at order, read in that order from
-- idx_inbox_pull_pending (source, scheduled_at, created_at, id). The ORDER
-- BY names scheduled_at alone, so that every plan reads an index in that
-- order and stops at the limit: on statistics taken while the table was
-- empty, the planner prefers idx_inbox_consumption_pending (consumption,
-- state, scheduled_at), and with a longer ORDER BY it would sort every due
-- pull row under it; in scheduled_at order that index reads, besides this
-- source's candidates, the due rows of other pull sources that come
-- before them. Rows that tie on scheduled_at at the limit are taken in
-- any order; the claim order below is exact. The
-- expired candidates and the busy probes read idx_inbox_pull_busy, whose
-- rows are the rows in flight (bounded by the workers times their
-- batches), not the backlog. A claim therefore reads at most :cand_limit
-- pending rows however deep the backlog is; the price is that candidates
-- all belonging to busy aggregates give an empty claim until one finishes.
--
-- Locks: the candidate scan takes no lock, and the choice of one row per
-- aggregate is made before any lock, so a claim never skips a locked row
-- and then takes a later row of the same aggregate instead. The chosen
-- rows are then locked one by one by primary key (id and created_at, the
-- key of a partitioned inbox too) with SKIP LOCKED, which never waits for
-- a concurrent claim, and re-checked after the lock: a row that a
-- concurrent claim or a completion changed first is dropped. The probe
-- names the key alone and the re-check reads the locked row: with the
-- state in the probe, the planner could choose an index of pending rows
-- instead of the key and read all of them once per chosen row.
-- There is no claim lock: two concurrent claims may each see an aggregate
-- as free, but they then choose the same row of it, and only one of them
-- locks it. One window stays open: a row of the aggregate that commits
-- between the two claims' snapshots with an earlier (scheduled_at,
-- created_at, id) than the row the first claim chose (an insert
-- transaction that began before the first claim and committed after it)
-- is the second claim's choice, and both rows run at once. QueueBox
-- stores each message in a short transaction of its own, so the window
-- is that of one insert.
--
-- The lease starts when the row is written (clock_timestamp()), not when
-- the transaction began.
WITH due AS (
    SELECT id, aggregate_id, scheduled_at, created_at
    FROM inbox
    WHERE consumption = 'pull' AND state = 'pending'
      AND source = CAST(:source AS text)
      AND scheduled_at <= now()
    ORDER BY scheduled_at
    LIMIT CAST(:cand_limit AS integer)
), expired AS (
    SELECT id, aggregate_id, scheduled_at, created_at
    FROM inbox
    WHERE consumption = 'pull' AND state = 'processing'
      AND source = CAST(:source AS text)
      AND lease_expires_at <= now()
    ORDER BY scheduled_at, created_at, id
    LIMIT CAST(:cand_limit AS integer)
), ranked AS (
    SELECT c.id, c.scheduled_at, c.created_at,
           row_number() OVER (
               PARTITION BY c.aggregate_id, CASE WHEN c.aggregate_id IS NULL THEN c.id END
               ORDER BY c.scheduled_at, c.created_at, c.id) AS nth
    FROM (SELECT id, aggregate_id, scheduled_at, created_at FROM due
          UNION ALL SELECT id, aggregate_id, scheduled_at, created_at FROM expired) c
    WHERE NOT EXISTS (
        SELECT 1 FROM inbox busy
        WHERE busy.consumption = 'pull' AND busy.state = 'processing'
          AND busy.source = CAST(:source AS text)
          AND busy.aggregate_id = c.aggregate_id
          AND busy.lease_expires_at > now())
), picked AS (
    SELECT id, scheduled_at, created_at FROM ranked
    WHERE nth = 1
    ORDER BY scheduled_at, created_at, id
), locked AS (
    -- One primary key probe per chosen row, in claim order, until the
    -- batch is full; the LIMIT 1 keeps the planner from pushing the
    -- re-check down into the probe.
    SELECT l.id, l.created_at FROM picked p
    CROSS JOIN LATERAL (
        SELECT id, created_at, consumption, source, state, scheduled_at, lease_expires_at FROM inbox
        WHERE id = p.id AND created_at = p.created_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED) l
    WHERE l.consumption = 'pull' AND l.source = CAST(:source AS text)
      AND ((l.state = 'pending' AND l.scheduled_at <= now())
           OR (l.state = 'processing' AND l.lease_expires_at <= now()))
    LIMIT CAST(:batch AS integer)
), claimed AS (
    -- The created_at bounds let a partitioned inbox visit only the
    -- partitions of the locked rows.
    UPDATE inbox i
    SET state = 'processing',
        claim_token = gen_random_uuid(),
        claimed_at = clock_timestamp(),
        lease_expires_at = clock_timestamp() + CAST(:lease_ms AS integer) * interval '1 millisecond'
    WHERE i.id = ANY (ARRAY(SELECT id FROM locked))
      AND i.created_at BETWEEN (SELECT min(created_at) FROM locked) AND (SELECT max(created_at) FROM locked)
    RETURNING i.id, i.source, i.idempotency_key, i.aggregate_id, i.event_type, i.payload, i.headers,
              i.attempt, i.correlation_id, i.claim_token, i.scheduled_at, i.created_at
)
SELECT id::text, source, idempotency_key, aggregate_id, event_type, payload::text, headers::text,
       attempt, correlation_id, claim_token::text
FROM claimed
ORDER BY scheduled_at, created_at, id
