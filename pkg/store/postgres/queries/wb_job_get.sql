-- One replay job.
SELECT {{template "wb_job_columns" ""}}
FROM {{.Jobs}}
WHERE id = @id::uuid
