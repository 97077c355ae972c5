-- The inbox: one row per (source, idempotency key). The unique constraint
-- is the deduplication.
CREATE TABLE inbox (
    id UNIQUEIDENTIFIER NOT NULL CONSTRAINT pk_inbox PRIMARY KEY CONSTRAINT df_inbox_id DEFAULT NEWID(),
    source NVARCHAR(255) NOT NULL,
    idempotency_key NVARCHAR(255) NOT NULL,
    aggregate_id NVARCHAR(255) NULL,
    event_type NVARCHAR(255) NULL,
    payload NVARCHAR(MAX) NOT NULL,
    state NVARCHAR(50) NOT NULL CONSTRAINT df_inbox_state DEFAULT 'pending',
    created_at DATETIME2 NOT NULL CONSTRAINT df_inbox_created_at DEFAULT GETUTCDATE(),
    processed_at DATETIME2 NULL,
    CONSTRAINT uq_inbox_source_idempotency UNIQUE (source, idempotency_key)
);
GO

CREATE INDEX idx_inbox_state ON inbox (state);
CREATE INDEX idx_inbox_state_created ON inbox (state, created_at);
CREATE INDEX idx_inbox_aggregate_state ON inbox (aggregate_id, state);
GO
