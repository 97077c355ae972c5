-- The state of one row, to tell a missing row from one in the wrong state
-- after a resend or a discard changed nothing; the twin of the
-- PostgreSQL wb_state.sql.
SELECT {{.T.State}}
FROM {{.T.Table}}
WHERE {{.T.ID}} = {{template "wb_id" "@id"}}
