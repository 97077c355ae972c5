-- Pieces that several statements share, written once. A statement
-- includes one with {{template "fence" args "T" .O "A" "o"}}: T is the
-- table's columns (.O or .I), A the alias the statement gives the table.
--
-- fence is the claim fence of every write that finishes or renews a claim
-- (the spec's "claim fence"): the rows of d (one per lease: id, token,
-- and the values of the write) that are still processing under the
-- caller's token with a live lease, locked in id order. Every fenced
-- write locks its rows first and in this one order: the writer and the
-- renewal of one replica run on two connections over shared rows at once,
-- and two statements that lock shared rows in different orders deadlock.
{{define "fence"}}SELECT {{.A}}.{{.T.ID}} AS id
    FROM {{.T.Table}} {{.A}}
    JOIN d ON {{.A}}.{{.T.ID}} = d.id
    WHERE {{template "fence_holds" .}}
    ORDER BY {{.A}}.{{.T.ID}}
    FOR UPDATE OF {{.A}}{{end}}

-- fence_holds is the fence's condition on one row joined with its d row.
-- The write repeats it after the lock: PostgreSQL re-reads a row that
-- changed since the statement's snapshot and checks the condition again.
{{define "fence_holds"}}{{.A}}.{{.T.State}} = 'processing' AND {{.A}}.{{.T.ClaimToken}} = d.token AND {{.A}}.{{.T.LeaseExpiresAt}} > now(){{end}}
