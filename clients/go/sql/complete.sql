-- QueueBox pull completion, PostgreSQL.
--
-- Marks one claimed row processed. Run it in the transaction of the
-- business writes, as its last statement, then commit: the business
-- writes and the completion commit together or not at all.
--
-- Parameters:
--   :id     text (uuid)  the row id from the claim
--   :token  text (uuid)  the claim token from the claim
--
-- Fenced on the id, state processing, the token and a live lease (the
-- moment of the write, clock_timestamp(), not the start of the business
-- transaction). It must change exactly one row; zero rows means another
-- worker owns the row: roll the whole transaction back. It clears the
-- token and the lease.
UPDATE inbox
SET state = 'processed',
    processed_at = clock_timestamp(),
    claim_token = NULL,
    lease_expires_at = NULL
WHERE id = CAST(:id AS uuid)
  AND state = 'processing'
  AND claim_token = CAST(:token AS uuid)
  AND lease_expires_at > clock_timestamp()
