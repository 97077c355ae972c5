-- Takes the oldest unfinished replay job whose lease is free or expired
-- (its process died or stopped) under a new token: the job's fence; the
-- twin of the PostgreSQL wb_job_claim.sql. A second runner skips the
-- locked row, so one job has one runner; the outer UPDATE checks the
-- lease again on the locked row.
--
-- T-SQL points: WITH (UPDLOCK, READPAST, ROWLOCK) in place of FOR UPDATE
-- SKIP LOCKED, as the claims take their rows; NEWID() for the token;
-- the lease of @lease_ms milliseconds through DATEADD (the "after"
-- partial); OUTPUT in place of RETURNING.
UPDATE j
SET lease_token = NEWID(),
    lease_expires_at = {{template "after" args "Ms" "@lease_ms" "Now" ""}}
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.id)), LOWER(CONVERT(NVARCHAR(36), inserted.lease_token))
FROM {{.Jobs}} AS j WITH (UPDLOCK, READPAST, ROWLOCK)
JOIN (
    SELECT TOP (1) id
    FROM {{.Jobs}} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE done = 0 AND (lease_expires_at IS NULL OR lease_expires_at <= SYSUTCDATETIME())
    ORDER BY created_at) AS c ON j.id = c.id
WHERE j.done = 0 AND (j.lease_expires_at IS NULL OR j.lease_expires_at <= SYSUTCDATETIME())
