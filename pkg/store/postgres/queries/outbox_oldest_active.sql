-- The created_at of the oldest pending or processing row of a partitioned
-- outbox, read from the start of the active index of every partition (its
-- predicate repeated word for word): the claimer's active check (see
-- active_check.go), which lowers the bound its claims start their own
-- read of that row from. One row, NULL when no row is active.
SELECT (SELECT {{.O.CreatedAt}} FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.CreatedAt}} > '-infinity'
        ORDER BY {{.O.CreatedAt}} LIMIT 1)
