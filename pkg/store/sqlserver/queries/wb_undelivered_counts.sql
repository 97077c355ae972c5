-- The counts of the undelivered view; the twin of the PostgreSQL
-- wb_undelivered_counts.sql.
--
-- T-SQL points: SUM(CASE ...) for count(*) FILTER, OUTER APPLY for LEFT
-- JOIN LATERAL, and GROUP BY the expressions (no ordinals, and no
-- constant: a selection of one group has HAVING instead).
SELECT {{if .O.Lanes}}o.{{.O.Destination}}{{else}}N''{{end}},
       {{if .Ledger.Table}}COALESCE(a.failure_class, N''){{else}}N''{{end}},
       CAST(SUM(CASE WHEN o.{{.O.State}} = 'dead' THEN 1 ELSE 0 END) AS BIGINT),
       CAST(SUM(CASE WHEN o.{{.O.State}} <> 'dead' THEN 1 ELSE 0 END) AS BIGINT)
FROM {{.O.Table}} o
{{- if .Ledger.Table}}
OUTER APPLY (
  SELECT TOP (1) l.failure_class FROM {{.Ledger.Table}} l
  WHERE l.outbox_id = o.{{.O.ID}} ORDER BY l.started_at DESC, l.id DESC
) a
{{- end}}
WHERE o.{{.O.UpdatedAt}} >= @since
  AND ((o.{{.O.State}} = 'dead' AND o.{{.O.DiscardedAt}} IS NULL)
       OR (o.{{.O.State}} IN ('pending', 'processing') AND o.{{.O.Attempt}} > 0))
{{- if .O.Lanes}}
  AND (@destination = N'' OR o.{{.O.Destination}} = @destination)
{{- else}}
  AND @destination = N''
{{- end}}
{{- if and .O.Lanes .Ledger.Table}}
GROUP BY o.{{.O.Destination}}, COALESCE(a.failure_class, N'')
{{- else if .O.Lanes}}
GROUP BY o.{{.O.Destination}}
{{- else if .Ledger.Table}}
GROUP BY COALESCE(a.failure_class, N'')
{{- else}}
HAVING COUNT(*) > 0
{{- end}}
