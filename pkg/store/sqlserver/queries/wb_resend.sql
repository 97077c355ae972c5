-- Moves one row in a final state of its table back to pending (the
-- workbench's resend), with an optional corrected payload and headers on
-- an outbox row; the twin of the PostgreSQL wb_resend.sql. The state
-- condition is in this statement, checked on the locked row: a row that
-- a replica holds (processing) never moves, and of two resends of one
-- row only the first moves it (the second waits for the lock, then finds
-- it pending). It returns the payload before and after, whose digests
-- the caller logs.
--
-- T-SQL points: OUTPUT deleted.* and inserted.* give the old and new
-- payload in the one UPDATE (PostgreSQL needs a locking CTE for the old
-- one); WITH (ROWLOCK) and no READPAST, so a concurrent resend waits
-- instead of skipping the row; NULL @payload or @headers keeps the
-- stored text.
UPDATE {{.T.Table}} WITH (ROWLOCK)
SET {{template "wb_pending" .}}
{{- if .Outbox}},
    {{.O.Payload}} = COALESCE(@payload, {{.O.Payload}}),
    {{.O.Headers}} = COALESCE(@headers, {{.O.Headers}}){{end}}
OUTPUT deleted.{{if .Outbox}}{{.O.Payload}}{{else}}{{.I.Payload}}{{end}}, inserted.{{if .Outbox}}{{.O.Payload}}{{else}}{{.I.Payload}}{{end}}
WHERE {{.T.ID}} = {{template "wb_id" "@id"}}
  AND {{.T.State}} IN ({{template "wb_states" .Final}})
