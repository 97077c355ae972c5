-- The earliest scheduled_at of a due pending row without a key (NULL or
-- ''), read from the start of the two partial indexes that the claim's
-- scans of such rows read, with their predicates word for word: the
-- claimer's check beside its claims (package scanfloor; active_check.go),
-- which lowers the bound of those scans when a row was committed late
-- below it. $1 is the nullable clock, as in outbox_claim.sql. NULL when
-- no such row is due.
SELECT LEAST(
    (SELECT "ob_scheduledat" FROM "qb_outbox"
     WHERE "ob_state" = 'pending' AND "ob_key" IS NULL
       AND "ob_scheduledat" <= COALESCE($1::timestamptz, now())
     ORDER BY "ob_scheduledat", "ob_sequence"
     LIMIT 1),
    (SELECT "ob_scheduledat" FROM "qb_outbox"
     WHERE "ob_state" = 'pending' AND "ob_key" = ''
       AND "ob_scheduledat" <= COALESCE($1::timestamptz, now())
     ORDER BY "ob_scheduledat", "ob_sequence"
     LIMIT 1))
