-- Moves up to @limit rows a workbench filter selects back to pending in
-- one statement (a small replay; NULL: no bound); the twin of the
-- PostgreSQL wb_move.sql. The caller narrowed the filter to final
-- states; the outer UPDATE checks them again on the locked row, so no
-- filter moves a row that waits or runs.
--
-- T-SQL points: TOP with a BIGINT bound; WITH (UPDLOCK, READPAST,
-- ROWLOCK) in place of FOR UPDATE SKIP LOCKED, as the replay statement
-- takes its rows.
UPDATE {{.T.Table}} WITH (ROWLOCK)
SET {{template "wb_pending" .}}
WHERE {{.T.State}} IN ({{template "wb_states" .Final}})
  AND {{.T.ID}} IN (
    SELECT TOP (COALESCE(@limit, 9223372036854775807)) {{.T.ID}}
    FROM {{.T.Table}} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE 1 = 1{{template "wb_filter" .}})
