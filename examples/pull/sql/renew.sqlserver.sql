-- QueueBox pull lease renewal, SQL Server.
--
-- Extends the lease of one claimed row. Run it every third of the lease
-- while the handler works, in a transaction of its own (autocommit).
--
-- Parameters:
--   @id        nvarchar(36)  the row id from the claim
--   @token     nvarchar(36)  the claim token from the claim
--   @lease_ms  int           the lease duration in milliseconds
--
-- Fenced: it changes the row only while the row is processing under this
-- token with a lease that has not passed. It must change exactly one row;
-- zero rows means another worker owns the row: stop the work, and never
-- retry with another token.
--
-- Written and reviewed, not run by the QueueBox test suite.
UPDATE inbox
SET lease_expires_at = DATEADD(millisecond, @lease_ms, SYSUTCDATETIME())
WHERE id = CONVERT(UNIQUEIDENTIFIER, @id)
  AND state = N'processing'
  AND claim_token = CONVERT(UNIQUEIDENTIFIER, @token)
  AND lease_expires_at > SYSUTCDATETIME();
