-- QueueBox pull completion, SQL Server.
--
-- Marks one claimed row processed. Run it in the transaction of the
-- business writes, as its last statement, then commit: the business
-- writes and the completion commit together or not at all.
--
-- Parameters:
--   @id     nvarchar(36)  the row id from the claim
--   @token  nvarchar(36)  the claim token from the claim
--
-- Fenced on the id, state processing, the token and a live lease. It must
-- change exactly one row; zero rows means another worker owns the row:
-- roll the whole transaction back. It clears the token and the lease.
--
-- Written and reviewed, not run by the QueueBox test suite.
UPDATE inbox
SET state = N'processed',
    processed_at = SYSUTCDATETIME(),
    claim_token = NULL,
    lease_expires_at = NULL
WHERE id = CONVERT(UNIQUEIDENTIFIER, @id)
  AND state = N'processing'
  AND claim_token = CONVERT(UNIQUEIDENTIFIER, @token)
  AND lease_expires_at > SYSUTCDATETIME();
