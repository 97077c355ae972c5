-- The destination pauses that have not ended by the database clock (the
-- clock of scheduled_at), by destination, latest end first.
SELECT destination, replica, reason, detail, until_at, recorded_at
FROM {{.Pauses}}
WHERE until_at > now()
ORDER BY destination, until_at DESC, replica
