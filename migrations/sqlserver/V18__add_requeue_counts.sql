-- A count of the statements that moved rows of a queue table back to
-- pending (see the PostgreSQL file of the same version for why). The
-- SQL Server claims keep no hints yet, so nothing writes or reads this
-- table on SQL Server; it exists so that one version means one schema on
-- either database.
CREATE TABLE queuebox_requeues (
    queue    NVARCHAR(16) NOT NULL,
    requeues BIGINT NOT NULL,
    CONSTRAINT pk_queuebox_requeues PRIMARY KEY (queue)
);
GO
