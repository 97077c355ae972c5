-- QueueBox pull retry, PostgreSQL.
--
-- Returns one claimed row to pending after a failed handler: due again
-- after :delay_ms, with attempt raised by one and the reason stored.
-- Run it after the handler transaction rolled back, in a transaction of
-- its own (autocommit).
--
-- Parameters:
--   :id        text (uuid)  the row id from the claim
--   :token     text (uuid)  the claim token from the claim
--   :delay_ms  bigint       the wait before the next claim, milliseconds
--   :error     text         the reason, secrets removed and length cut
--                           before it is bound
--
-- Fenced on the id, state processing, the token and a live lease. It must
-- change exactly one row; zero rows means another worker owns the row. It
-- clears the token and the lease.
UPDATE inbox
SET state = 'pending',
    attempt = attempt + 1,
    scheduled_at = clock_timestamp() + CAST(:delay_ms AS bigint) * interval '1 millisecond',
    last_error = CAST(:error AS text),
    claim_token = NULL,
    lease_expires_at = NULL
WHERE id = CAST(:id AS uuid)
  AND state = 'processing'
  AND claim_token = CAST(:token AS uuid)
  AND lease_expires_at > clock_timestamp()
