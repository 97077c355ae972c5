-- Claims are fenced on a token and a lease from here on. Every old worker
-- must stop before this migration runs (see the upgrade guide).
ALTER TABLE outbox ADD claim_token UNIQUEIDENTIFIER NULL, lease_expires_at DATETIME2 NULL;
GO

-- Existing rows become push rows, which keeps their behaviour.
ALTER TABLE inbox ADD
    claim_token UNIQUEIDENTIFIER NULL,
    lease_expires_at DATETIME2 NULL,
    consumption VARCHAR(4) NOT NULL CONSTRAINT df_inbox_consumption DEFAULT 'push'
        CONSTRAINT ck_inbox_consumption CHECK (consumption IN ('push', 'pull')),
    scheduled_at DATETIME2 NOT NULL CONSTRAINT df_inbox_scheduled_at DEFAULT SYSUTCDATETIME(),
    attempt INT NOT NULL CONSTRAINT df_inbox_attempt DEFAULT 0,
    last_error NVARCHAR(MAX) NULL;
GO

CREATE INDEX idx_inbox_consumption_pending ON inbox (consumption, state, scheduled_at);
GO
