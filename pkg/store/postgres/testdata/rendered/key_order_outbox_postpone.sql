-- Moves the pending rows of the paused destination $4 that fall due
-- before $2 ms from now to exactly that time: the rows of a destination
-- that paused (an open circuit breaker, a Retry-After) leave the claims
-- until the pause ends, instead of being claimed and deferred batch by
-- batch. A row moves when it was routed to $4, or when it has no
-- destination yet and its topic is one of $5, the topics whose route
-- sends a row to $4 alone (a topic that fans out waits for its claim, so
-- its other destinations are not held). The topic index finds the rows:
-- every row that moves has a topic of $1, the topics routed to $4. Only
-- scheduled_at changes; a processing row belongs to a claim and is left
-- alone. A row that a claim locks right now is waited for and then
-- re-checked, so it is skipped once the claim made it processing. $3 is
-- the nullable clock. An outbox without the lane columns has no
-- destination and no fan-out: every row of the topics moves, and the
-- statement takes $1 to $3 only.
UPDATE "qb_outbox" o
SET "ob_scheduledat" = COALESCE($3::timestamptz, now()) + $2 * interval '1 millisecond'
WHERE o."ob_topic" = ANY ($1::text[])
  AND o."ob_state" = 'pending'
  AND o."ob_scheduledat" < COALESCE($3::timestamptz, now()) + $2 * interval '1 millisecond'
