-- Records a replay job; the runner of some process claims it. The twin
-- of the PostgreSQL wb_job_create.sql.
--
-- T-SQL points: OUTPUT inserted.* in place of RETURNING; the filter is
-- JSON text in an NVARCHAR(MAX) column.
INSERT INTO {{.Jobs}} (table_name, filter, matched)
OUTPUT {{template "wb_job_columns" "inserted."}}
VALUES (@table_name, @filter, @matched)
