-- The distinct outbox topics of the rows a workbench filter selects: the
-- candidates that a topic glob or a destination narrows.
SELECT DISTINCT {{.O.Topic}}
FROM {{.O.Table}}
WHERE TRUE{{template "wb_filter" .}}
