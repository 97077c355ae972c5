-- Forwards claimed push rows: marks each inbox row processed, fenced
-- (partials.sql) on its token and a live lease, and inserts its outbox
-- row in the same statement, so a row whose fence failed gets no outbox
-- row. Rows are inserted in created_at order, so the outbox sequence
-- keeps the aggregate order. The fence locks the rows in id order first,
-- as the renewal locks them, so the two never deadlock.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) AS d(id, token, topic, headers)
), owned AS MATERIALIZED (
    SELECT i."ib_id" AS id
    FROM "qb_inbox" i
    JOIN d ON i."ib_id" = d.id
    WHERE COALESCE(i."ib_state", '') = 'processing' AND i."ib_claimtoken" = d.token AND i."ib_leaseexpiresat" > COALESCE($6::timestamptz, now())
    ORDER BY i."ib_id"
    FOR UPDATE OF i
), marked AS (
    UPDATE "qb_inbox" i
    SET "ib_state" = 'processed',
        "ib_processedat" = COALESCE($6::timestamptz, now())
    FROM d, owned
    WHERE i."ib_id" = owned.id
      AND d.id = owned.id
      AND COALESCE(i."ib_state", '') = 'processing' AND i."ib_claimtoken" = d.token AND i."ib_leaseexpiresat" > COALESCE($6::timestamptz, now())
    RETURNING i."ib_id" AS id, i."ib_aggregateid" AS aggregate_id, i."ib_payload" AS payload,
              i."ib_createdat" AS created_at
), inserted AS (
    INSERT INTO "qb_outbox" ("ob_topic", "ob_key", "ob_payload", "ob_headers", "ob_maxattempts")
    SELECT d.topic, m.aggregate_id, m.payload, d.headers, $5
    FROM marked m JOIN d ON d.id = m.id
    ORDER BY m.created_at, m.id
    RETURNING 1
)
SELECT m.id::text FROM marked m
