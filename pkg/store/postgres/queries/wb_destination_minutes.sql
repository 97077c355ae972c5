-- The attempts of the delivery ledger per destination and minute since
-- @window ago by the database clock, sent apart from failed and dead
-- (deferrals spend no attempt), and those since @recent_ms ago counted
-- apart: one group-by over the ledger's (destination, started_at) index.
SELECT destination, date_trunc('minute', started_at),
       count(*) FILTER (WHERE outcome = 'sent'),
       count(*) FILTER (WHERE outcome IN ('failed', 'dead')),
       count(*) FILTER (WHERE outcome = 'sent' AND started_at >= now() - @recent_ms::bigint * interval '1 millisecond'),
       count(*) FILTER (WHERE outcome IN ('failed', 'dead') AND started_at >= now() - @recent_ms::bigint * interval '1 millisecond')
FROM {{.Ledger.Table}}
WHERE started_at >= now() - @window_ms::bigint * interval '1 millisecond' AND outcome <> 'deferred'
GROUP BY 1, 2
ORDER BY 1, 2
