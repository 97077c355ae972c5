-- The earliest created_at of a pending push row without an aggregate of
-- the sources $1, read from the start of the index that the relay
-- claim's scan of such rows reads, with its predicate word for word: the
-- relay's check beside its claims (package scanfloor; active_check.go),
-- which lowers the bound of that scan when a row was committed late below
-- it. NULL when there is none.
SELECT (SELECT {{.I.CreatedAt}} FROM {{.I.Table}}
        WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} = 'pending' AND {{.I.AggregateID}} IS NULL
          AND {{.I.Source}} = ANY($1::text[])
        ORDER BY {{.I.CreatedAt}}, {{.I.ID}}
        LIMIT 1)
