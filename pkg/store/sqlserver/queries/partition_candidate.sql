-- Reads one past partition whole, without holding a lock past the read,
-- for its rows and for a row that keeps it: a state that is not final
-- or{{if .UpdatedAt}}, in the outbox, which ages a row by updated_at,{{end}} a change at or after the
-- cutoff. @p1 is a time inside the partition (its lower bound), @p2 the
-- cutoff (now minus retention's maxAge). partition_drop.sql checks again,
-- under its locks, what a replay could have changed meanwhile.
--
-- T-SQL points: $PARTITION maps a value to its partition number, which
-- lets the engine read that partition only.
SELECT COUNT_BIG(*) AS rows,
       CAST(CASE WHEN COUNT_BIG(CASE WHEN {{.State}} NOT IN ('{{index .Final 0}}', '{{index .Final 1}}'){{if .UpdatedAt}} OR {{.UpdatedAt}} >= @p2{{end}} THEN 1 END) > 0
            THEN 1 ELSE 0 END AS BIT) AS keep
FROM {{.Table}}
WHERE $PARTITION.{{.Function}}({{.CreatedAt}}) = $PARTITION.{{.Function}}(@p1)
