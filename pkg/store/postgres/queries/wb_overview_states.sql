-- The rows of one table per state, the discarded dead rows apart.
SELECT {{.T.State}}, {{.T.DiscardedAt}} IS NOT NULL, count(*)
FROM {{.T.Table}}
GROUP BY 1, 2
