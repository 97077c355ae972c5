-- Stores one received message. The unique constraint on (source,
-- idempotency_key) is the only deduplication: a repeat inserts nothing,
-- returns no row and never blocks longer than the first insert of the key
-- takes to commit. $1 is the row id; NULL lets the database choose one.
-- Payload and headers arrive as text and become JSONB here.
INSERT INTO "qb_inbox" (
    "ib_id", "ib_source", "ib_idempotencykey", "ib_aggregateid", "ib_eventtype",
    "ib_payload", "ib_headers", "ib_correlationid", "ib_consumption", "ib_state",
    "ib_lasterror"
)
VALUES (
    COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, $5,
    $6::text::jsonb, $7::text::jsonb, $8, $9, $10,
    $11
)
ON CONFLICT ("ib_source", "ib_idempotencykey") DO NOTHING
RETURNING "ib_id"::text
