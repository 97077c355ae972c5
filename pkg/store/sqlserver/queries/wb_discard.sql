-- Marks one dead row discarded: it stays as the record of the decision
-- and retention deletes it later like any dead row; the twin of the
-- PostgreSQL wb_discard.sql. Of concurrent discards of one row, the
-- first locks it and the others, once it commits, find the mark set and
-- change nothing.
--
-- T-SQL points: WITH (ROWLOCK) on the one row; SYSUTCDATETIME().
UPDATE {{.T.Table}} WITH (ROWLOCK)
SET {{.T.DiscardedAt}} = SYSUTCDATETIME()
WHERE {{.T.ID}} = {{template "wb_id" "@id"}} AND {{.T.State}} = 'dead' AND {{.T.DiscardedAt}} IS NULL
