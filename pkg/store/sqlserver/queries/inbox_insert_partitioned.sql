-- Stores one received message in a partitioned inbox, unless a row of
-- its (source, idempotency_key) exists in any partition; the twin of the
-- PostgreSQL inbox_insert_partitioned.sql, with inbox_key_lock.sql in the
-- same batch. A partitioned inbox holds no unique index on the key (an
-- aligned one would need created_at, an unaligned one would forbid
-- emptying a partition), so the key is kept unique here: an exclusive
-- application lock on a hash of the source and the key, owned by the
-- transaction, then the look-up across partitions and the insert. The
-- lock is released at the commit, after the row is written, so a second
-- insert of the key reads after the first one committed and finds its
-- row, in whichever partition; this holds under READ COMMITTED, with or
-- without READ_COMMITTED_SNAPSHOT, whose statement snapshot starts after
-- the lock was granted. A duplicate returns no row. The arguments are
-- those of inbox_insert.sql.
--
-- Not wired: database.partitioning refuses sqlserver until this has run
-- against a server (docs/partitions.md). A batch insert would take the
-- locks of its keys in the order of their hashes, as on PostgreSQL.
--
-- T-SQL points: sp_getapplock needs a transaction for a lock the
-- transaction owns; the resource is at most 255 characters, hence the
-- SHA2_256 hash of the two values; a lock not granted returns a negative
-- code, which THROW turns into an error.
SET XACT_ABORT ON;
BEGIN TRANSACTION;
DECLARE @granted INT;
DECLARE @resource NVARCHAR(255) = N'queuebox.inbox.key.'
    + CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', CAST(@p2 AS NVARCHAR(255)) + NCHAR(10) + CAST(@p3 AS NVARCHAR(255))), 2);
EXEC @granted = sp_getapplock @Resource = @resource, @LockMode = 'Exclusive', @LockOwner = 'Transaction';
IF @granted < 0
    THROW 51000, 'the lock of the idempotency key was not granted', 1;
INSERT INTO {{.I.Table}} (
    {{.I.ID}}, {{.I.Source}}, {{.I.IdempotencyKey}}, {{.I.AggregateID}}, {{.I.EventType}},
    {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.Consumption}}, {{.I.State}},
    {{.I.LastError}}
)
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.I.ID}}))
SELECT COALESCE(CAST(@p1 AS UNIQUEIDENTIFIER), NEWID()), @p2, @p3, @p4, @p5,
       @p6, @p7, @p8, @p9, @p10,
       @p11
WHERE NOT EXISTS (
    SELECT 1 FROM {{.I.Table}}
    WHERE {{.I.Source}} = @p2 AND {{.I.IdempotencyKey}} = @p3);
COMMIT
