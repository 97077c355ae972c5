-- Forwards claimed push rows: marks each inbox row processed, fenced
-- (partials.sql) on its token and a live lease, and inserts its outbox
-- row in the same statement, so a row whose fence failed gets no outbox
-- row. Rows are inserted in created_at order, so the outbox sequence
-- keeps the aggregate order. The fence locks the rows in id order first,
-- as the renewal locks them, so the two never deadlock.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) AS d(id, token, topic, headers)
), owned AS MATERIALIZED (
    {{template "fence" args "T" .I "A" "i" "Now" "$6"}}
), marked AS (
    UPDATE {{.I.Table}} i
    SET {{.I.State}} = 'processed',
        {{.I.ProcessedAt}} = {{template "now" "$6"}}
    FROM d, owned
    WHERE i.{{.I.ID}} = owned.id
      AND d.id = owned.id
      AND {{template "fence_holds" args "T" .I "A" "i" "Now" "$6"}}
    RETURNING i.{{.I.ID}} AS id, i.{{.I.AggregateID}} AS aggregate_id, i.{{.I.Payload}} AS payload,
              i.{{.I.CreatedAt}} AS created_at
), inserted AS (
    INSERT INTO {{.O.Table}} ({{.O.Topic}}, {{.O.Key}}, {{.O.Payload}}, {{.O.Headers}}, {{.O.MaxAttempts}})
    SELECT d.topic, m.aggregate_id, m.payload, d.headers, $5
    FROM marked m JOIN d ON d.id = m.id
    ORDER BY m.created_at, m.id
    RETURNING 1
)
SELECT m.id::text FROM marked m
