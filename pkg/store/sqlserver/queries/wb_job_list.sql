-- The newest replay jobs, newest first; the twin of the PostgreSQL
-- wb_job_list.sql.
--
-- T-SQL points: TOP (@limit) in place of LIMIT.
SELECT TOP (@limit) {{template "wb_job_columns" ""}}
FROM {{.Jobs}}
ORDER BY created_at DESC
