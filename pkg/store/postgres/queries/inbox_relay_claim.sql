-- Claims up to $1 push rows for the relay. It runs after
-- pg_advisory_xact_lock in the same transaction, so relay claims of every
-- replica run one after another and each sees the claims before it. A row
-- with an aggregate is claimable only when no push row of that aggregate
-- is processing and no earlier push row of it is pending, so at most one
-- row per aggregate is in flight and rows go in created_at order. Rows
-- without an aggregate take part in no ordering. Pull rows are never
-- touched, and neither are rows of a source missing from $3, the sources
-- this relay is configured with: during a rolling change, ingest may
-- store rows of a source that this replica does not know yet, and they
-- wait (holding back their aggregate) for a relay that does. $4 is the
-- nullable clock, written out as in outbox_claim.sql.
WITH candidates AS (
    SELECT i.{{.I.ID}} AS id
    FROM {{.I.Table}} i
    WHERE i.{{.I.State}} = 'pending'
      AND i.{{.I.Consumption}} = 'push'
      AND i.{{.I.Source}} = ANY($3::text[])
      AND (i.{{.I.AggregateID}} IS NULL OR (
          NOT EXISTS (
              SELECT 1 FROM {{.I.Table}} busy
              WHERE busy.{{.I.AggregateID}} = i.{{.I.AggregateID}}
                AND busy.{{.I.State}} = 'processing'
                AND busy.{{.I.Consumption}} = 'push')
          AND NOT EXISTS (
              SELECT 1 FROM {{.I.Table}} earlier
              WHERE earlier.{{.I.AggregateID}} = i.{{.I.AggregateID}}
                AND earlier.{{.I.State}} = 'pending'
                AND earlier.{{.I.Consumption}} = 'push'
                AND (earlier.{{.I.CreatedAt}}, earlier.{{.I.ID}}) < (i.{{.I.CreatedAt}}, i.{{.I.ID}}))))
    ORDER BY i.{{.I.CreatedAt}}, i.{{.I.ID}}
    LIMIT $1
    FOR UPDATE SKIP LOCKED
)
UPDATE {{.I.Table}} i
SET {{.I.State}} = 'processing',
    {{.I.ClaimToken}} = gen_random_uuid(),
    {{.I.ClaimedAt}} = COALESCE($4::timestamptz, now()),
    {{.I.LeaseExpiresAt}} = COALESCE($4::timestamptz, now()) + $2 * interval '1 millisecond'
FROM candidates
WHERE i.{{.I.ID}} = candidates.id
RETURNING i.{{.I.ID}}::text, i.{{.I.Source}}, i.{{.I.IdempotencyKey}}, i.{{.I.AggregateID}}, i.{{.I.EventType}},
          i.{{.I.Headers}}::text, i.{{.I.CorrelationID}}, i.{{.I.CreatedAt}}, i.{{.I.ClaimToken}}::text
