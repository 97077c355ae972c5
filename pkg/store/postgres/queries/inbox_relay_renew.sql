-- Extends the relay leases still held, fenced. The rows are locked first,
-- in id order, as the forward and the dead mark lock them: the renewal
-- and a write of one relay run on two connections at once, and two
-- statements that lock shared rows in different orders deadlock.
WITH held AS MATERIALIZED (
    SELECT i.{{.I.ID}} AS id
    FROM {{.I.Table}} i
    JOIN unnest($1::uuid[], $2::uuid[]) AS d(id, token) ON i.{{.I.ID}} = d.id
    WHERE i.{{.I.State}} = 'processing'
      AND i.{{.I.ClaimToken}} = d.token
      AND i.{{.I.LeaseExpiresAt}} > now()
    ORDER BY i.{{.I.ID}}
    FOR UPDATE OF i
)
UPDATE {{.I.Table}} i
SET {{.I.LeaseExpiresAt}} = now() + $3 * interval '1 millisecond'
FROM held
WHERE i.{{.I.ID}} = held.id
  AND i.{{.I.State}} = 'processing'
  AND i.{{.I.LeaseExpiresAt}} > now()
RETURNING i.{{.I.ID}}::text
