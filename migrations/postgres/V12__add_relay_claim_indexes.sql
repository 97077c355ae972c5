-- The two indexes of the relay claim. The claim walks the aggregates that
-- have push rows in play and takes the head of each: the first pending row
-- in (created_at, id) order, skipping an aggregate with a processing row.
-- idx_inbox_push_heads serves that walk one probe per aggregate, whatever
-- the depth of each aggregate's backlog and however many finished rows the
-- table keeps; idx_inbox_push_unkeyed serves the rows without an
-- aggregate in created_at order. Without them the claim's cost grew with
-- the backlog (see the upgrade notes). A plain CREATE INDEX blocks inserts
-- while it builds; on a large inbox, create them CONCURRENTLY by hand
-- first (the upgrade notes say how).
CREATE INDEX IF NOT EXISTS idx_inbox_push_heads ON inbox (aggregate_id, state, created_at, id)
    WHERE consumption = 'push' AND state IN ('pending', 'processing') AND aggregate_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_inbox_push_unkeyed ON inbox (created_at, id)
    WHERE consumption = 'push' AND state = 'pending' AND aggregate_id IS NULL;
