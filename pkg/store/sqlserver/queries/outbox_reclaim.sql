-- Returns processing rows whose lease expired to pending; the twin of the
-- PostgreSQL outbox_reclaim.sql. The next claim takes them under a new
-- token; the old owner's fence then fails. A row another statement holds
-- is skipped (READPAST), so the step never waits on a renewal or an
-- outcome write; the next step takes it if its lease is still expired.
--
-- T-SQL points: WITH (UPDLOCK, READPAST, ROWLOCK); @p1 is the nullable
-- clock; the count comes from the rows affected.
UPDATE o
SET {{.O.State}} = 'pending',
    {{.O.LeaseExpiresAt}} = NULL,
    {{.O.UpdatedAt}} = {{template "now" "@p1"}}
FROM {{.O.Table}} AS o WITH (UPDLOCK, READPAST, ROWLOCK)
WHERE o.{{.O.State}} = 'processing'
  AND o.{{.O.LeaseExpiresAt}} < {{template "now" "@p1"}}
