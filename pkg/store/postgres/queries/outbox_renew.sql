-- Extends the leases still held, fenced like every terminal write. The
-- rows are locked first, in id order, as the outcome write locks them, so
-- the two never deadlock.
WITH held AS MATERIALIZED (
    SELECT o.{{.O.ID}} AS id
    FROM {{.O.Table}} o
    JOIN unnest($1::uuid[], $2::uuid[]) AS d(id, token) ON o.{{.O.ID}} = d.id
    WHERE o.{{.O.State}} = 'processing'
      AND o.{{.O.ClaimToken}} = d.token
      AND o.{{.O.LeaseExpiresAt}} > now()
    ORDER BY o.{{.O.ID}}
    FOR UPDATE OF o
)
UPDATE {{.O.Table}} o
SET {{.O.LeaseExpiresAt}} = now() + $3 * interval '1 millisecond'
FROM held
WHERE o.{{.O.ID}} = held.id
  AND o.{{.O.State}} = 'processing'
  AND o.{{.O.LeaseExpiresAt}} > now()
RETURNING o.{{.O.ID}}::text
