-- Moves the pending rows of the topics $1 that fall due before $2 ms
-- from now to exactly that time: the rows of a destination that paused
-- (an open circuit breaker, a Retry-After) leave the claims until the
-- pause ends, instead of being claimed and deferred batch by batch. Only
-- scheduled_at changes; a processing row belongs to a claim and is left
-- alone. The topic index finds the rows; a row that a claim locks right
-- now is waited for and then re-checked, so it is skipped once the claim
-- made it processing. $3 is the nullable clock.
UPDATE {{.O.Table}} o
SET {{.O.ScheduledAt}} = {{template "now" "$3"}} + $2 * interval '1 millisecond'
WHERE o.{{.O.Topic}} = ANY ($1::text[])
  AND o.{{.O.State}} = 'pending'
  AND o.{{.O.ScheduledAt}} < {{template "now" "$3"}} + $2 * interval '1 millisecond'
