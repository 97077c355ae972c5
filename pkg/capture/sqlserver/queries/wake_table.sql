-- The wake row: SQL Server has no LISTEN/NOTIFY, so capture bumps a
-- generation that deliver replicas read by primary key.
IF OBJECT_ID(N'queuebox_wake', N'U') IS NULL
    CREATE TABLE queuebox_wake (
        channel VARCHAR(63) NOT NULL PRIMARY KEY,
        generation BIGINT NOT NULL
    );
