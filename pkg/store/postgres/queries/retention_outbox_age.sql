-- Deletes up to $2 sent or dead outbox rows whose last state change is
-- older than $1 milliseconds. Pending and processing rows never match.
DELETE FROM {{.O.Table}}
WHERE {{.O.ID}} IN (
    SELECT {{.O.ID}} FROM {{.O.Table}}
    WHERE {{.O.State}} IN ('sent', 'dead')
      AND {{.O.UpdatedAt}} < now() - $1 * interval '1 millisecond'
    LIMIT $2)
