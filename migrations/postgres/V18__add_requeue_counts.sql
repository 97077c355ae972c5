-- A count of the statements that moved rows of a queue table back to
-- pending, one row per queue ('outbox', 'inbox').
--
-- Deliver remembers, per lane, the sequence of the last head it claimed,
-- and the relay, per aggregate, the last head's place, so that a claim
-- can start each lane at its head instead of at the first of the index
-- entries that an old open transaction keeps alive there. A hint is only
-- right while no row of the lane returns below it, and the statements
-- that return rows to pending (the workbench's resend, move and replay
-- jobs, the admin replay) are the ways a row does: each of them adds one
-- here, in its own transaction, before it moves a row. A claim reads the
-- count in its own snapshot and walks every lane from its start when the
-- count is not the one its hints were taken under, so it sees a moved
-- row and the new count together or neither.
--
-- The table is QueueBox's own and keeps its name whatever the outbox and
-- inbox are called. It is new and empty: creating it locks nothing, and
-- an older build ignores it.
CREATE TABLE IF NOT EXISTS queuebox_requeues (
    queue    VARCHAR(16) PRIMARY KEY,
    requeues BIGINT NOT NULL
);
