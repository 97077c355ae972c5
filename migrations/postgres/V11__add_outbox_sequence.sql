-- The insert order of the outbox. The claim orders the rows of one key by
-- it. Every old replica must stop before this migration runs.
CREATE SEQUENCE outbox_sequence_seq;

ALTER TABLE outbox ADD COLUMN sequence BIGINT;

-- Number the rows that exist in created_at order, so their key order holds.
UPDATE outbox o
SET sequence = numbered.n
FROM (
    SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
    FROM outbox
) AS numbered
WHERE o.id = numbered.id;

SELECT setval('outbox_sequence_seq', COALESCE((SELECT max(sequence) FROM outbox), 0) + 1, false);

ALTER TABLE outbox ALTER COLUMN sequence SET DEFAULT nextval('outbox_sequence_seq');
ALTER TABLE outbox ALTER COLUMN sequence SET NOT NULL;
ALTER SEQUENCE outbox_sequence_seq OWNED BY outbox.sequence;

CREATE INDEX idx_outbox_key_sequence ON outbox (key, sequence)
    WHERE state IN ('pending', 'processing');
