-- Moves the pending rows of the paused destination @p4 that fall due
-- before @p2 ms from now to exactly that time; the twin of the
-- PostgreSQL outbox_postpone.sql. A row moves when it was routed to @p4,
-- or when it has no destination yet and its topic is one of @p5, the
-- topics whose route sends a row to @p4 alone (a topic that fans out
-- waits for its claim, so its other destinations are not held). The
-- topic index finds the rows: every row that moves has a topic of @p1,
-- the topics routed to @p4. Only scheduled_at changes; a processing row
-- belongs to a claim and is left alone.
--
-- T-SQL points: both topic lists arrive as JSON arrays of strings (@p1,
-- @p5) read by OPENJSON, since T-SQL has no array parameters; ROWLOCK
-- keeps the update from escalating while claims read past it (READPAST).
-- @p3 is the nullable clock.
UPDATE o
SET {{.O.ScheduledAt}} = {{template "after" args "Ms" "@p2" "Now" "@p3"}}
FROM {{.O.Table}} AS o WITH (ROWLOCK)
WHERE o.{{.O.Topic}} IN (SELECT value FROM OPENJSON(@p1))
  AND o.{{.O.State}} = 'pending'
  AND o.{{.O.ScheduledAt}} < {{template "after" args "Ms" "@p2" "Now" "@p3"}}
{{- if .O.Lanes}}
  AND (o.{{.O.Destination}} = @p4
       OR (o.{{.O.Destination}} = '' AND o.{{.O.Topic}} IN (SELECT value FROM OPENJSON(@p5))))
{{- end}}
