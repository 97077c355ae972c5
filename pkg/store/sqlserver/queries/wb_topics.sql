-- The distinct outbox topics of the rows a workbench filter selects: the
-- candidates that a topic glob or a destination narrows; the twin of the
-- PostgreSQL wb_topics.sql.
SELECT DISTINCT {{.O.Topic}}
FROM {{.O.Table}}
WHERE 1 = 1{{template "wb_filter" .}}
