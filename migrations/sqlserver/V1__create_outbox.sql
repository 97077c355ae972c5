-- The outbox: rows the application writes in its own transaction and
-- QueueBox delivers. KEY is a reserved word, hence [key].
SET QUOTED_IDENTIFIER ON;
GO

CREATE TABLE outbox (
    id UNIQUEIDENTIFIER NOT NULL CONSTRAINT pk_outbox PRIMARY KEY CONSTRAINT df_outbox_id DEFAULT NEWID(),
    topic NVARCHAR(255) NOT NULL,
    [key] NVARCHAR(255) NULL,
    payload NVARCHAR(MAX) NOT NULL,
    headers NVARCHAR(MAX) NOT NULL CONSTRAINT df_outbox_headers DEFAULT '{}',
    state NVARCHAR(50) NOT NULL CONSTRAINT df_outbox_state DEFAULT 'pending',
    attempt INT NOT NULL CONSTRAINT df_outbox_attempt DEFAULT 0,
    max_attempts INT NOT NULL CONSTRAINT df_outbox_max_attempts DEFAULT 5,
    scheduled_at DATETIME2 NOT NULL CONSTRAINT df_outbox_scheduled_at DEFAULT GETUTCDATE(),
    created_at DATETIME2 NOT NULL CONSTRAINT df_outbox_created_at DEFAULT GETUTCDATE(),
    updated_at DATETIME2 NOT NULL CONSTRAINT df_outbox_updated_at DEFAULT GETUTCDATE()
);
GO

CREATE INDEX idx_outbox_pending_scheduled ON outbox (state, scheduled_at) WHERE state = 'pending';
CREATE INDEX idx_outbox_state_updated ON outbox (state, updated_at);
GO
