-- The rows of one table per state, the discarded dead rows apart; the
-- twin of the PostgreSQL wb_overview_states.sql.
--
-- T-SQL points: no boolean expression in a select list, so the mark is
-- a CASE read back as BIT; COUNT_BIG.
SELECT {{.T.State}}, CAST(CASE WHEN {{.T.DiscardedAt}} IS NULL THEN 0 ELSE 1 END AS BIT), COUNT_BIG(*)
FROM {{.T.Table}}
GROUP BY {{.T.State}}, CASE WHEN {{.T.DiscardedAt}} IS NULL THEN 0 ELSE 1 END
