-- Ends a replay job with an error, under its lease; the twin of the
-- PostgreSQL wb_job_fail.sql.
UPDATE {{.Jobs}} WITH (ROWLOCK)
SET done = 1, error = @error, finished_at = SYSUTCDATETIME(), lease_token = NULL, lease_expires_at = NULL
WHERE id = {{template "wb_id" "@job"}} AND lease_token = {{template "wb_id" "@token"}} AND done = 0
