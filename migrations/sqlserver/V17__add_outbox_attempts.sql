-- The delivery ledger: one row per attempt of an outbox row (see the
-- PostgreSQL file of the same version for why it exists and what each
-- column holds).
--
-- The outcome write of deliver inserts into this table through the
-- OUTPUT ... INTO clause of its UPDATE, in the same statement, for the
-- rows whose claim fence held. SQL Server refuses OUTPUT INTO a table
-- with a trigger, a CHECK constraint or a foreign key on either side:
-- keep the table without them. It is new and empty: creating it locks
-- nothing, and an older build ignores it.
CREATE TABLE outbox_attempts (
    id            BIGINT IDENTITY(1,1) NOT NULL CONSTRAINT pk_outbox_attempts PRIMARY KEY,
    outbox_id     UNIQUEIDENTIFIER NOT NULL,
    message_id    UNIQUEIDENTIFIER NOT NULL,
    destination   NVARCHAR(200) NOT NULL,
    attempt       INT NOT NULL,
    started_at    DATETIME2 NOT NULL,
    duration_ms   INT NOT NULL,
    outcome       NVARCHAR(16) NOT NULL,
    failure_class NVARCHAR(32) NULL,
    status        NVARCHAR(64) NULL,
    answer        NVARCHAR(1024) NULL,
    recorded_at   DATETIME2 NOT NULL CONSTRAINT df_outbox_attempts_recorded_at DEFAULT SYSUTCDATETIME()
);
GO

CREATE INDEX idx_outbox_attempts_outbox ON outbox_attempts (outbox_id, id);
CREATE INDEX idx_outbox_attempts_destination ON outbox_attempts (destination, started_at);
CREATE INDEX idx_outbox_attempts_started ON outbox_attempts (started_at);
GO
