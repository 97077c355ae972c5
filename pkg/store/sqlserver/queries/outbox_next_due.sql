-- The wait in milliseconds until the earliest pending row scheduled later
-- than @p2 milliseconds before now falls due, or NULL when no row waits;
-- the twin of the PostgreSQL outbox_next_due.sql. The delay, not the
-- timestamp, is returned so that the poller never compares the
-- database's clock with its own. It is rounded up: a wake a little late
-- finds the row due. MIN over the filtered (state, scheduled_at) index of
-- pending rows is one seek.
--
-- T-SQL points: DATEDIFF_BIG in microseconds (DATEDIFF overflows an INT
-- past 35 minutes), CEILING to whole milliseconds, DATEADD through the
-- "before" partial; @p1 is the nullable clock.
SELECT CAST(CEILING(DATEDIFF_BIG(MICROSECOND, {{template "now" "@p1"}}, MIN({{.O.ScheduledAt}})) / 1000.0) AS BIGINT)
FROM {{.O.Table}}
WHERE {{.O.State}} = 'pending'
  AND {{.O.ScheduledAt}} > {{template "before" args "Ms" "@p2" "Now" "@p1"}}
