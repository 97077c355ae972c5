-- Marks one dead row discarded: it stays as the record of the decision
-- and retention deletes it later like any dead row.
UPDATE {{.T.Table}}
SET {{.T.DiscardedAt}} = now()
WHERE {{.T.ID}} = @id::uuid AND {{.T.State}} = 'dead' AND {{.T.DiscardedAt}} IS NULL
