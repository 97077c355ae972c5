-- The earliest created_at of a pending push row without an aggregate of
-- the sources $1, read from the start of the index that the relay
-- claim's scan of such rows reads, with its predicate word for word: the
-- relay's check beside its claims (package scanfloor; active_check.go),
-- which lowers the bound of that scan when a row was committed late below
-- it. NULL when there is none.
SELECT (SELECT "ib_createdat" FROM "qb_inbox"
        WHERE "ib_consumption" = 'push' AND "ib_state" = 'pending' AND "ib_aggregateid" IS NULL
          AND "ib_source" = ANY($1::text[])
        ORDER BY "ib_createdat", "ib_id"
        LIMIT 1)
