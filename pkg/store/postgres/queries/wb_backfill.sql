-- Adds the missing delivery to @destination of up to @limit messages a
-- backfill selects (wb_missing), lowest id first: a replay to a
-- destination that a route names only since the messages were routed.
-- The store runs it in a transaction after wb_backfill_lock.sql, a
-- transaction advisory lock on the table and the destination, so the
-- snapshot of this statement starts after every other backfill to that
-- destination has committed: two replicas, or a request beside a job,
-- never both see a message without its delivery and both add one. The
-- caller's states (final ones only) keep a message that waits or runs
-- out. The deliveries it adds take their message's sequence, so it
-- counts itself as a move back to pending (the "requeued" partial).
{{if .Requeues}}WITH {{template "requeued" args "Table" .Requeues "Queue" "outbox"}}
{{end}}INSERT INTO {{.O.Table}} ({{template "wb_add_columns" .}})
SELECT {{template "wb_add_values" .}}
FROM {{.O.Table}} m
WHERE m.{{.O.ID}} IN (
    SELECT {{.T.ID}}
    FROM {{.T.Table}}
    WHERE TRUE{{template "wb_filter" .}}{{template "after_requeued" .Requeues}}
    ORDER BY {{.T.ID}}
    LIMIT @limit)
