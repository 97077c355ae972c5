-- The operator's workbench (see the PostgreSQL file of the same version
-- for why each part exists). Filtered indexes need QUOTED_IDENTIFIER ON
-- (sqlcmd -I). On a large outbox, build the index ONLINE by hand before
-- the upgrade (Enterprise edition), as the upgrade notes say.
SET QUOTED_IDENTIFIER ON;
GO

ALTER TABLE outbox ADD discarded_at DATETIME2 NULL;
ALTER TABLE inbox ADD discarded_at DATETIME2 NULL;
GO

CREATE INDEX idx_outbox_dead_sequence ON outbox (sequence) WHERE state = 'dead';
GO

CREATE TABLE queuebox_replay_jobs (
    id               UNIQUEIDENTIFIER NOT NULL CONSTRAINT pk_queuebox_replay_jobs PRIMARY KEY DEFAULT NEWID(),
    table_name       NVARCHAR(16) NOT NULL,
    filter           NVARCHAR(MAX) NOT NULL,
    matched          BIGINT NOT NULL,
    moved            BIGINT NOT NULL DEFAULT 0,
    cursor_id        UNIQUEIDENTIFIER NULL,
    done             BIT NOT NULL DEFAULT 0,
    error            NVARCHAR(MAX) NULL,
    created_at       DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME(),
    finished_at      DATETIME2 NULL,
    lease_token      UNIQUEIDENTIFIER NULL,
    lease_expires_at DATETIME2 NULL
);
CREATE INDEX idx_replay_jobs_open ON queuebox_replay_jobs (created_at) WHERE done = 0;
GO
