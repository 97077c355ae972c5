-- Pauses of destinations, for the workbench (see the PostgreSQL file of
-- the same version for why the table exists): one row per destination
-- and deliver replica, replaced at each pause.
CREATE TABLE queuebox_destination_pauses (
    destination NVARCHAR(200) NOT NULL,
    replica     NVARCHAR(200) NOT NULL,
    reason      NVARCHAR(32) NOT NULL,
    detail      NVARCHAR(MAX) NULL,
    until_at    DATETIME2 NOT NULL,
    recorded_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME(),
    CONSTRAINT pk_queuebox_destination_pauses PRIMARY KEY (destination, replica)
);
GO
