-- Deletes up to @p3 rows of state @p1 beyond the newest @p2 of that
-- state; the twin of the PostgreSQL retention_outbox_count.sql.
--
-- T-SQL points: OFFSET ... FETCH NEXT in place of OFFSET/LIMIT (it needs
-- the ORDER BY it has).
DELETE FROM {{.O.Table}}
WHERE {{.O.ID}} IN (
    SELECT {{.O.ID}} FROM {{.O.Table}}
    WHERE {{.O.State}} = @p1
    ORDER BY {{.O.UpdatedAt}} DESC, {{.O.ID}} DESC
    OFFSET @p2 ROWS FETCH NEXT @p3 ROWS ONLY)
