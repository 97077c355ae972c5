-- Lists up to $1 pending keyed rows that have no destination yet, lowest
-- sequence first, for the deliver side to route (outbox_assign.sql). The
-- partial index idx_outbox_unrouted holds exactly these rows, so an
-- outbox whose keyed rows are all routed costs one empty index probe.
-- Nothing is locked: routing is idempotent (the assignment routes only a
-- row that has none), so two replicas that read the same rows at once
-- waste a little work and write each row once.
SELECT "ob_id"::text, "ob_topic"
FROM "qb_outbox"
WHERE "ob_state" = 'pending' AND "ob_destination" = '' AND "ob_key" > ''
ORDER BY "ob_sequence"
LIMIT $1
