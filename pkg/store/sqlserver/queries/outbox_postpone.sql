-- Moves the pending rows of the topics in @p1 that fall due before @p2 ms
-- from now to exactly that time; the twin of the PostgreSQL
-- outbox_postpone.sql. Only scheduled_at changes; a processing row
-- belongs to a claim and is left alone.
--
-- T-SQL points: the topics arrive as one JSON array of strings (@p1)
-- read by OPENJSON, since T-SQL has no array parameters; ROWLOCK keeps
-- the update from escalating while claims read past it (READPAST). @p3
-- is the nullable clock.
UPDATE o
SET {{.O.ScheduledAt}} = {{template "after" args "Ms" "@p2" "Now" "@p3"}}
FROM {{.O.Table}} AS o WITH (ROWLOCK)
WHERE o.{{.O.Topic}} IN (SELECT value FROM OPENJSON(@p1))
  AND o.{{.O.State}} = 'pending'
  AND o.{{.O.ScheduledAt}} < {{template "after" args "Ms" "@p2" "Now" "@p3"}}
