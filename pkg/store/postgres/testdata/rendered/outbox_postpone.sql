-- Moves the pending rows of the topics $1 that fall due before $2 ms
-- from now to exactly that time: the rows of a destination that paused
-- (an open circuit breaker, a Retry-After) leave the claims until the
-- pause ends, instead of being claimed and deferred batch by batch. Only
-- scheduled_at changes; a processing row belongs to a claim and is left
-- alone. The topic index finds the rows; a row that a claim locks right
-- now is waited for and then re-checked, so it is skipped once the claim
-- made it processing. $3 is the nullable clock.
UPDATE "qb_outbox" o
SET "ob_scheduledat" = COALESCE($3::timestamptz, now()) + $2 * interval '1 millisecond'
WHERE o."ob_topic" = ANY ($1::text[])
  AND o."ob_state" = 'pending'
  AND o."ob_scheduledat" < COALESCE($3::timestamptz, now()) + $2 * interval '1 millisecond'
