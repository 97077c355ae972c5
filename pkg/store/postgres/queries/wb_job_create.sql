-- Records a replay job; the runner of some process claims it.
INSERT INTO {{.Jobs}} (table_name, filter, matched)
VALUES (@table_name, @filter::text::jsonb, @matched)
RETURNING {{template "wb_job_columns" ""}}
