-- Lists up to @p1 pending keyed rows that have no destination yet, lowest
-- sequence first, for the deliver side to route (outbox_assign.sql); the
-- twin of the PostgreSQL outbox_unrouted.sql. The filtered index
-- idx_outbox_unrouted holds exactly these rows (the WHERE repeats its
-- filter word for word, so that the optimizer matches it), so an outbox
-- whose keyed rows are all routed costs one empty seek. No lock outlives
-- the read: routing is idempotent (the assignment routes only a row that
-- has none), so two replicas that read the same rows at once waste a
-- little work and write each row once.
--
-- T-SQL points: TOP (@p1) instead of LIMIT; UNIQUEIDENTIFIER read back
-- as lower-case text.
SELECT TOP (@p1) LOWER(CONVERT(NVARCHAR(36), {{.O.ID}})), {{.O.Topic}}
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending' AND {{.O.Destination}} = '' AND {{.O.Key}} > ''
ORDER BY {{.O.Sequence}}
