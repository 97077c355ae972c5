-- QueueBox pull dead letter, SQL Server.
--
-- Marks one claimed row dead: no worker claims it again. Run it after the
-- handler transaction rolled back, in a transaction of its own
-- (autocommit).
--
-- Parameters:
--   @id     nvarchar(36)   the row id from the claim
--   @token  nvarchar(36)   the claim token from the claim
--   @error  nvarchar(max)  the reason, secrets removed and length cut
--                          before it is bound
--
-- Fenced on the id, state processing, the token and a live lease. It must
-- change exactly one row; zero rows means another worker owns the row. It
-- clears the token and the lease.
--
-- Written and reviewed, not run by the QueueBox test suite.
UPDATE inbox
SET state = N'dead',
    last_error = @error,
    claim_token = NULL,
    lease_expires_at = NULL
WHERE id = CONVERT(UNIQUEIDENTIFIER, @id)
  AND state = N'processing'
  AND claim_token = CONVERT(UNIQUEIDENTIFIER, @token)
  AND lease_expires_at > SYSUTCDATETIME();
