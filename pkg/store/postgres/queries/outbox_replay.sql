-- Moves sent and dead rows back to pending for the admin replay, at most
-- $5 rows per statement: the route runs it batch after batch, each its own
-- short transaction, so a wide filter never locks or rewrites the whole
-- table in one UPDATE. Every filter is optional (NULL skips it) and they
-- combine with AND; the state condition is always there, also on the
-- outer UPDATE, so no filter can move a waiting or running row, and a row
-- that a batch moved is pending and no later batch takes it. The row
-- keeps its id, sequence, payload and headers. The statement counts the
-- move first (the "requeued" partial).
{{if .Requeues}}WITH {{template "requeued" args "Table" .Requeues "Queue" "outbox"}}
{{end}}UPDATE {{.O.Table}}
SET {{.O.State}} = 'pending',
    {{.O.Attempt}} = 0,
    {{.O.ScheduledAt}} = now(),
    {{.O.LastError}} = NULL,
    {{.O.ClaimedAt}} = NULL,
    {{.O.ClaimToken}} = NULL,
    {{.O.LeaseExpiresAt}} = NULL,
    {{.O.UpdatedAt}} = now()
WHERE {{.O.State}} IN ('sent', 'dead')
  AND {{.O.ID}} IN (
    SELECT {{.O.ID}}
    FROM {{.O.Table}}
    WHERE {{.O.State}} IN ('sent', 'dead')
      AND ($1::uuid[] IS NULL OR {{.O.ID}} = ANY($1))
      AND ($2::text[] IS NULL OR {{.O.Topic}} = ANY($2))
      AND ($3::timestamptz IS NULL OR {{.O.CreatedAt}} > $3)
      AND ($4::timestamptz IS NULL OR {{.O.CreatedAt}} < $4){{template "after_requeued" .Requeues}}
    LIMIT $5
    FOR UPDATE SKIP LOCKED)
