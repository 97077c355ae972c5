-- Ends a replay job with an error, under its lease.
UPDATE {{.Jobs}}
SET done = TRUE, error = @error, finished_at = now(), lease_token = NULL, lease_expires_at = NULL
WHERE id = @job::uuid AND lease_token = @token::uuid AND NOT done
