-- The earliest scheduled_at of a due pending row without a key (NULL or
-- ''), read from the start of the two partial indexes that the claim's
-- scans of such rows read, with their predicates word for word: the
-- claimer's check beside its claims (package scanfloor; active_check.go),
-- which lowers the bound of those scans when a row was committed late
-- below it. $1 is the nullable clock, as in outbox_claim.sql. NULL when
-- no such row is due.
SELECT LEAST(
    (SELECT {{.O.ScheduledAt}} FROM {{.O.Table}}
     WHERE {{.O.State}} = 'pending' AND {{.O.Key}} IS NULL
       AND {{.O.ScheduledAt}} <= COALESCE($1::timestamptz, now())
     ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
     LIMIT 1),
    (SELECT {{.O.ScheduledAt}} FROM {{.O.Table}}
     WHERE {{.O.State}} = 'pending' AND {{.O.Key}} = ''
       AND {{.O.ScheduledAt}} <= COALESCE($1::timestamptz, now())
     ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
     LIMIT 1))
