-- The newest replay jobs, newest first.
SELECT {{template "wb_job_columns" ""}}
FROM {{.Jobs}}
ORDER BY created_at DESC
LIMIT @limit
