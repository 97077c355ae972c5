-- One batch of a replay job under the job's lease; the twin of the
-- PostgreSQL wb_job_step.sql. The job walks the selected rows in id
-- order: the batch takes the next @batch ids past the job's cursor,
-- moves those still in a final state, and moves the cursor past the
-- batch, renews the lease and adds the count in the same transaction. A
-- batch that commits is never taken again, whoever runs the job next,
-- and one that does not commit moved nothing. A job with no row left is
-- done. When the lease is no longer the caller's, nothing moves and no
-- row comes back.
--
-- T-SQL points: a batch of statements (T-SQL has no data-modifying CTE)
-- that the store runs in one transaction; SET NOCOUNT ON so that the
-- job row is the batch's only result; SET XACT_ABORT ON so that any
-- error rolls the whole batch back; the job row is read WITH (UPDLOCK,
-- ROWLOCK), which holds off a second runner until the commit; the batch
-- is read without READPAST: a row that another statement holds must be
-- waited for, or the cursor would pass it unmoved; ids compare as
-- UNIQUEIDENTIFIER, in SQL Server's order, the same order for the walk
-- and the cursor; the lease through DATEADD (the "after" partial).
SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @held BIT = 0, @cursor UNIQUEIDENTIFIER, @moved BIGINT = 0;
DECLARE @taken TABLE (id UNIQUEIDENTIFIER PRIMARY KEY);
SELECT @held = 1, @cursor = cursor_id
FROM {{.Jobs}} WITH (UPDLOCK, ROWLOCK)
WHERE id = {{template "wb_id" "@job"}} AND lease_token = {{template "wb_id" "@token"}}
  AND lease_expires_at > SYSUTCDATETIME() AND done = 0;
IF @held = 1
BEGIN
    INSERT INTO @taken (id)
    SELECT TOP (@batch) {{.T.ID}}
    FROM {{.T.Table}}
    WHERE ({{.T.ID}} > @cursor OR @cursor IS NULL){{template "wb_filter" .}}
    ORDER BY {{.T.ID}};
    UPDATE {{.T.Table}} WITH (ROWLOCK)
    SET {{template "wb_pending" .}}
    WHERE {{.T.ID}} IN (SELECT id FROM @taken)
      AND {{.T.State}} IN ({{template "wb_states" .Final}});
    SET @moved = ROWCOUNT_BIG();
    UPDATE {{.Jobs}}
    SET cursor_id = COALESCE((SELECT TOP (1) id FROM @taken ORDER BY id DESC), cursor_id),
        moved = moved + @moved,
        done = CASE WHEN EXISTS (SELECT 1 FROM @taken) THEN 0 ELSE 1 END,
        finished_at = CASE WHEN EXISTS (SELECT 1 FROM @taken) THEN NULL ELSE SYSUTCDATETIME() END,
        lease_expires_at = {{template "after" args "Ms" "@lease_ms" "Now" ""}}
    OUTPUT {{template "wb_job_columns" "inserted."}}
    WHERE id = {{template "wb_id" "@job"}};
END
