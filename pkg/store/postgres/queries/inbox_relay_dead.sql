-- Marks claimed push rows dead (a topic that rendered empty), fenced
-- (partials.sql). The fence locks the rows in id order first, as the
-- renewal locks them.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS d(id, token, error)
), owned AS MATERIALIZED (
    {{template "fence" args "T" .I "A" "i" "Now" "$4"}}
)
UPDATE {{.I.Table}} i
SET {{.I.State}} = 'dead',
    {{.I.LastError}} = d.error,
    {{.I.ClaimToken}} = NULL,
    {{.I.LeaseExpiresAt}} = NULL
FROM d, owned
WHERE i.{{.I.ID}} = owned.id
  AND d.id = owned.id
  AND {{template "fence_holds" args "T" .I "A" "i" "Now" "$4"}}
RETURNING i.{{.I.ID}}::text
