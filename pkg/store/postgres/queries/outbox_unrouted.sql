-- Lists up to $1 pending keyed rows that have no destination yet, lowest
-- sequence first, for the deliver side to route (outbox_assign.sql). The
-- partial index idx_outbox_unrouted holds exactly these rows, so an
-- outbox whose keyed rows are all routed costs one empty index probe.
-- Nothing is locked: routing is idempotent (the assignment routes only a
-- row that has none), so two replicas that read the same rows at once
-- waste a little work and write each row once.
SELECT {{.O.ID}}::text, {{.O.Topic}}
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending' AND {{.O.Destination}} = '' AND {{.O.Key}} > ''
ORDER BY {{.O.Sequence}}
LIMIT $1
