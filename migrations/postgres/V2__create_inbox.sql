-- The inbox: one row per (source, idempotency key). The unique constraint
-- is the deduplication.
CREATE TABLE inbox (
    id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    source VARCHAR(255) NOT NULL,
    idempotency_key VARCHAR(255) NOT NULL,
    aggregate_id VARCHAR(255),
    event_type VARCHAR(255),
    payload JSONB NOT NULL,
    state VARCHAR(50) NOT NULL DEFAULT 'pending',
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    processed_at TIMESTAMP WITH TIME ZONE,
    CONSTRAINT uq_inbox_source_idempotency UNIQUE (source, idempotency_key)
);

CREATE INDEX idx_inbox_pending ON inbox (state) WHERE state = 'pending';
CREATE INDEX idx_inbox_source ON inbox (source);
CREATE INDEX idx_inbox_aggregate_state ON inbox (aggregate_id, state);
CREATE INDEX idx_inbox_state_created ON inbox (state, created_at);
