-- The created_at of the oldest pending or processing row of a partitioned
-- inbox, read from the start of the active index of every partition (its
-- predicate repeated word for word): the claimer's active check (see
-- active_check.go), which lowers the bound its claims start their own
-- read of that row from. One row, NULL when no row is active.
SELECT (SELECT "created_at" FROM "inbox"
        WHERE "state" IN ('pending', 'processing') AND "created_at" > '-infinity'
        ORDER BY "created_at" LIMIT 1)
