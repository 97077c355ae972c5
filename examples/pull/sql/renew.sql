-- QueueBox pull lease renewal, PostgreSQL.
--
-- Extends the lease of one claimed row. Run it every third of the lease
-- while the handler works, in a transaction of its own (autocommit).
--
-- Parameters:
--   :id        text (uuid)  the row id from the claim
--   :token     text (uuid)  the claim token from the claim
--   :lease_ms  integer      the lease duration in milliseconds
--
-- Fenced: it changes the row only while the row is processing under this
-- token with a lease that has not passed. It must change exactly one row;
-- zero rows means another worker owns the row: stop the work, and never
-- retry with another token. The new lease runs from the moment of the
-- write (clock_timestamp()).
UPDATE inbox
SET lease_expires_at = clock_timestamp() + CAST(:lease_ms AS integer) * interval '1 millisecond'
WHERE id = CAST(:id AS uuid)
  AND state = 'processing'
  AND claim_token = CAST(:token AS uuid)
  AND lease_expires_at > clock_timestamp()
