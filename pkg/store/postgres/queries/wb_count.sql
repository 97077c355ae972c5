-- Counts the rows a workbench filter selects, up to @limit rows (NULL: no
-- bound).
SELECT count(*)
FROM (
    SELECT 1
    FROM {{.T.Table}}
    WHERE TRUE{{template "wb_filter" .}}
    LIMIT @limit) AS selected
