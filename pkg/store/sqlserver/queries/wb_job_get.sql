-- One replay job; the twin of the PostgreSQL wb_job_get.sql.
SELECT {{template "wb_job_columns" ""}}
FROM {{.Jobs}}
WHERE id = {{template "wb_id" "@id"}}
