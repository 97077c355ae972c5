-- Deletes up to $2 processed or dead inbox rows received more than $1
-- milliseconds ago. Pending and processing rows never match.
DELETE FROM {{.I.Table}}
WHERE {{.I.ID}} IN (
    SELECT {{.I.ID}} FROM {{.I.Table}}
    WHERE {{.I.State}} IN ('processed', 'dead')
      AND {{.I.CreatedAt}} < now() - $1 * interval '1 millisecond'
    LIMIT $2)
