-- Takes the oldest unfinished replay job whose lease is free or expired
-- (its process died or stopped) under a new token: the job's fence. A
-- second runner skips the locked row, so one job has one runner.
UPDATE {{.Jobs}}
SET lease_token = gen_random_uuid(),
    lease_expires_at = now() + @lease_ms::bigint * interval '1 millisecond'
WHERE id = (
    SELECT id
    FROM {{.Jobs}}
    WHERE NOT done AND (lease_expires_at IS NULL OR lease_expires_at <= now())
    ORDER BY created_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
  AND NOT done AND (lease_expires_at IS NULL OR lease_expires_at <= now())
RETURNING id::text, lease_token::text
