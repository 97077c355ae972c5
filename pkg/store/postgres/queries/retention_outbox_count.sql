-- Deletes up to $3 rows of state $1 beyond the newest $2 of that state.
DELETE FROM {{.O.Table}}
WHERE {{.O.ID}} IN (
    SELECT {{.O.ID}} FROM {{.O.Table}}
    WHERE {{.O.State}} = $1
    ORDER BY {{.O.UpdatedAt}} DESC, {{.O.ID}} DESC
    OFFSET $2
    LIMIT $3)
