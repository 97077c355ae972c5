-- One batch of a replay job, in one statement under the job's lease. The
-- job walks the selected rows in id order: the batch takes the next
-- @batch ids past the job's cursor, moves those still in a final state,
-- and moves the cursor past the batch in the same transaction. A batch
-- that commits is never taken again, whoever runs the job next, and one
-- that does not commit moved nothing. A job with no row left is done.
-- Each step counts itself as a move back to pending (the "requeued"
-- partial) once it holds its job.
-- When the lease is no longer the caller's, nothing moves and no row
-- comes back.
--
-- A job of one destination's deliveries that also adds the missing ones
-- (AddMissing) does not end when its walk does: that step starts the
-- walk again from the lowest id with Backfill set in the filter, and the
-- later steps add the deliveries of the messages that have none
-- (wb_missing), in id order, counting them as moved. The backfill steps
-- run after wb_backfill_lock.sql in the step's transaction. The added
-- rows are pending and new, so the walk that moves rows is over before
-- any of them can be sent and moved again.
{{$q := "inbox"}}{{if .Outbox}}{{$q = "outbox"}}{{end}}
WITH {{if .Requeues}}{{template "requeued" args "Table" .Requeues "Queue" $q}}, {{end}}job AS (
    SELECT id, cursor_id
    FROM {{.Jobs}}
    WHERE id = @job::uuid AND lease_token = @token::uuid AND lease_expires_at > now() AND NOT done
    FOR UPDATE),
batch AS (
    SELECT {{.T.ID}} AS id
    FROM {{.T.Table}}
    WHERE EXISTS (SELECT 1 FROM job){{template "after_requeued" .Requeues}}{{template "wb_filter" .}}
      AND {{.T.ID}} > COALESCE((SELECT cursor_id FROM job), '00000000-0000-0000-0000-000000000000'::uuid)
    ORDER BY {{.T.ID}}
    LIMIT @batch),
moved AS (
{{- if .Backfill}}
    INSERT INTO {{.O.Table}} ({{template "wb_add_columns" .}})
    SELECT {{template "wb_add_values" .}}
    FROM {{.O.Table}} m
    WHERE m.{{.O.ID}} IN (SELECT id FROM batch)
{{- else}}
    UPDATE {{.T.Table}}
    SET {{template "wb_pending" .}}
    WHERE {{.T.ID}} IN (SELECT id FROM batch)
      AND {{.T.State}} IN ({{range $i, $s := .Final}}{{if $i}}, {{end}}'{{$s}}'{{end}})
{{- end}}
    RETURNING 1)
UPDATE {{.Jobs}} AS j
{{- if .AddMissing}}
SET cursor_id = (SELECT id FROM batch ORDER BY id DESC LIMIT 1),
    filter = CASE WHEN EXISTS (SELECT 1 FROM batch) THEN j.filter ELSE j.filter || '{"Backfill": true}'::jsonb END,
    moved = j.moved + (SELECT count(*) FROM moved),
    done = FALSE,
    finished_at = NULL,
{{- else}}
SET cursor_id = COALESCE((SELECT id FROM batch ORDER BY id DESC LIMIT 1), j.cursor_id),
    moved = j.moved + (SELECT count(*) FROM moved),
    done = NOT EXISTS (SELECT 1 FROM batch),
    finished_at = CASE WHEN EXISTS (SELECT 1 FROM batch) THEN NULL ELSE now() END,
{{- end}}
    lease_expires_at = now() + @lease_ms::bigint * interval '1 millisecond'
FROM job
WHERE j.id = job.id
RETURNING {{template "wb_job_columns" "j."}}
