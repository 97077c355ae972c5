-- Lists up to $1 pending keyed rows that have no destination yet, lowest
-- sequence first, for the deliver side to route (outbox_assign.sql). The
-- partial index idx_outbox_unrouted holds exactly these rows, so an
-- outbox whose keyed rows are all routed costs one empty index probe.
-- Nothing is locked: routing is idempotent (the assignment routes only a
-- row that has none), so two replicas that read the same rows at once
-- waste a little work and write each row once. $2 is the lowest sequence
-- to read, NULL for all (package scanfloor keeps it: under a transaction
-- older than the rows routed since, their entries stay in the index, and
-- a scan from its start steps over every one of them). A row below the
-- bound waits for the next full scan; until it is routed it holds back
-- the later rows of its key (outbox_claim.sql), so no order is lost.
SELECT {{.O.ID}}::text, {{.O.Topic}}, {{.O.Sequence}}
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending' AND {{.O.Destination}} = '' AND {{.O.Key}} > ''
  AND {{.O.Sequence}} >= COALESCE($2::bigint, -9223372036854775808)
ORDER BY {{.O.Sequence}}
LIMIT $1
