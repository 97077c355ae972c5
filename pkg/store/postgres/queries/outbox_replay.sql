-- Moves sent and dead rows back to pending for the admin replay. Every
-- filter is optional (NULL skips it) and they combine with AND; the state
-- condition is always there, so no filter can move a waiting or running
-- row. The row keeps its id, sequence, payload and headers.
UPDATE {{.O.Table}}
SET {{.O.State}} = 'pending',
    {{.O.Attempt}} = 0,
    {{.O.ScheduledAt}} = now(),
    {{.O.LastError}} = NULL,
    {{.O.ClaimedAt}} = NULL,
    {{.O.ClaimToken}} = NULL,
    {{.O.LeaseExpiresAt}} = NULL,
    {{.O.UpdatedAt}} = now()
WHERE {{.O.State}} IN ('sent', 'dead')
  AND ($1::uuid[] IS NULL OR {{.O.ID}} = ANY($1))
  AND ($2::text[] IS NULL OR {{.O.Topic}} = ANY($2))
  AND ($3::timestamptz IS NULL OR {{.O.CreatedAt}} > $3)
  AND ($4::timestamptz IS NULL OR {{.O.CreatedAt}} < $4)
