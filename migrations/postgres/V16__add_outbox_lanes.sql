-- Lanes and fan-out.
--
-- The order of a key now holds per destination: a lane is (key,
-- destination), and a row waits only for the earlier rows of its own
-- lane. destination is the destination QueueBox routed the row to, ''
-- until it is routed: a keyed row is routed soon after its insert, before
-- any claim (its lane must be known to order it); a row without a key is
-- routed when it is claimed, and its destination recorded with its
-- outcome. A row keeps the destination it was given.
--
-- origin_id is set on the rows QueueBox adds when a route names several
-- destinations: each such row is one delivery of the row the application
-- wrote (its origin_id), carries its message id to the receiver, and
-- shares its sequence, so it keeps the origin's place in its own lane.
--
-- idx_outbox_lane_sequence replaces idx_outbox_key_sequence: the claim
-- walks the lanes of keyed rows, one probe per lane. idx_outbox_unrouted
-- holds the keyed rows between their insert and their routing only.
-- idx_outbox_origin finds the deliveries of one message for the workbench.
-- A plain CREATE INDEX blocks writes while it builds; on a large outbox,
-- create the indexes CONCURRENTLY by hand first (the upgrade notes say
-- how) and this file then skips them. Adding the two columns rewrites
-- nothing: their defaults are constants. Every old replica must stop
-- before this migration runs.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS destination VARCHAR(200) NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS origin_id UUID;

CREATE INDEX IF NOT EXISTS idx_outbox_lane_sequence ON outbox (key, destination, sequence)
    WHERE state IN ('pending', 'processing') AND key > '';
CREATE INDEX IF NOT EXISTS idx_outbox_unrouted ON outbox (sequence)
    WHERE state = 'pending' AND destination = '' AND key > '';
CREATE INDEX IF NOT EXISTS idx_outbox_origin ON outbox (origin_id)
    WHERE origin_id IS NOT NULL;

DROP INDEX IF EXISTS idx_outbox_key_sequence;
