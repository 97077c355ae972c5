-- QueueBox pull claim, SQL Server.
--
-- Claims up to @batch rows of one consumption: pull source for one worker,
-- and returns them with their claim token.
--
-- Parameters (bind every one as a value, never build the text from them):
--   @source      nvarchar(255)  the source name whose rows the worker takes
--   @batch       int            the largest number of rows to claim
--   @lease_ms    int            the lease duration in milliseconds
--   @cand_limit  int            LEAST(GREATEST(3 * batch, 50), 500), bound on
--                               every call: the most candidates one claim reads
--
-- Returns, in claim order: id, source, idempotency_key, aggregate_id,
-- event_type, payload, headers, attempt, correlation_id, claim_token
-- (id and claim_token as nvarchar(36)).
--
-- The batch opens its own transaction and commits it; run it outside any
-- transaction of the caller and put nothing else in it. It takes an
-- exclusive application lock on the source name, owned by the
-- transaction, so the claims of one source run one at a time and each
-- sees the claims before it. The lock waits up to 10 seconds; on a
-- timeout the batch rolls back and raises Msg 51000, which is transient:
-- wait before the next claim, never retry at once. Give the driver a
-- command or request timeout of at least 30 seconds, so that the server
-- raises Msg 51000 before the driver aborts the call (an aborted call
-- leaves the lock held until the connection resets).
--
-- Needs READ COMMITTED, which the batch sets; it also works with
-- READ_COMMITTED_SNAPSHOT ON, because the reads take update locks.
--
-- The rules of the candidates, the one row per (source, aggregate_id) and
-- the claim order are those of claim.sql. The candidate reads skip rows
-- that another session holds locked (READPAST), for example a row that an
-- insert has not committed; the busy probe does not skip, so a processing
-- row whose completion has not committed yet still holds its aggregate.
--
-- Written and reviewed, not run by the QueueBox test suite.
SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

DECLARE @lock_result INT;
DECLARE @lock_resource NVARCHAR(255) = LEFT(N'queuebox_pull_claim_' + @source, 255);
DECLARE @now DATETIME2 = SYSUTCDATETIME();
DECLARE @picked TABLE (pick_id UNIQUEIDENTIFIER PRIMARY KEY, pick_order INT NOT NULL);

BEGIN TRANSACTION;

EXEC @lock_result = sp_getapplock
    @Resource = @lock_resource,
    @LockMode = 'Exclusive',
    @LockOwner = 'Transaction',
    @LockTimeout = 10000;

IF @lock_result < 0
BEGIN
    ROLLBACK TRANSACTION;
    THROW 51000, N'queuebox pull claim: the application lock of the source timed out', 1;
END;

WITH due AS (
    SELECT TOP (@cand_limit) id, aggregate_id, scheduled_at, created_at
    FROM inbox WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE consumption = 'pull' AND state = N'pending'
      AND source = @source
      AND scheduled_at <= @now
    ORDER BY source, scheduled_at, created_at, id
), expired AS (
    SELECT TOP (@cand_limit) id, aggregate_id, scheduled_at, created_at
    FROM inbox WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE consumption = 'pull' AND state = N'processing'
      AND source = @source
      AND lease_expires_at <= @now
    ORDER BY scheduled_at, created_at, id
), ranked AS (
    SELECT c.id, c.scheduled_at, c.created_at,
           ROW_NUMBER() OVER (
               PARTITION BY c.aggregate_id, CASE WHEN c.aggregate_id IS NULL THEN c.id END
               ORDER BY c.scheduled_at, c.created_at, c.id) AS nth
    FROM (SELECT * FROM due UNION ALL SELECT * FROM expired) c
    WHERE NOT EXISTS (
        SELECT 1 FROM inbox busy
        WHERE busy.consumption = 'pull' AND busy.state = N'processing'
          AND busy.source = @source
          AND busy.aggregate_id = c.aggregate_id
          AND busy.lease_expires_at > @now)
)
INSERT INTO @picked (pick_id, pick_order)
SELECT TOP (@batch) r.id, ROW_NUMBER() OVER (ORDER BY r.scheduled_at, r.created_at, r.id)
FROM ranked r
WHERE r.nth = 1
ORDER BY r.scheduled_at, r.created_at, r.id;

DECLARE @claimed TABLE (
    claim_order INT NOT NULL,
    row_id NVARCHAR(36) NOT NULL,
    row_source NVARCHAR(255) NOT NULL,
    row_key NVARCHAR(255) NOT NULL,
    row_aggregate NVARCHAR(255) NULL,
    row_event NVARCHAR(255) NULL,
    row_payload NVARCHAR(MAX) NOT NULL,
    row_headers NVARCHAR(MAX) NOT NULL,
    row_attempt INT NOT NULL,
    row_correlation NVARCHAR(128) NULL,
    row_token NVARCHAR(36) NOT NULL);

UPDATE i
SET state = N'processing',
    claim_token = NEWID(),
    claimed_at = SYSUTCDATETIME(),
    lease_expires_at = DATEADD(millisecond, @lease_ms, SYSUTCDATETIME())
OUTPUT p.pick_order, CONVERT(NVARCHAR(36), inserted.id), inserted.source, inserted.idempotency_key,
       inserted.aggregate_id, inserted.event_type, inserted.payload, inserted.headers,
       inserted.attempt, inserted.correlation_id, CONVERT(NVARCHAR(36), inserted.claim_token)
INTO @claimed
FROM inbox i WITH (ROWLOCK)
JOIN @picked p ON p.pick_id = i.id;

COMMIT TRANSACTION;

SELECT row_id, row_source, row_key, row_aggregate, row_event, row_payload, row_headers,
       row_attempt, row_correlation, row_token
FROM @claimed
ORDER BY claim_order;
