-- Moves sent and dead rows back to pending for the admin replay, at most
-- @p5 rows per statement (NULL: no bound); the twin of the PostgreSQL
-- outbox_replay.sql. Every filter is optional (NULL skips it) and they
-- combine with AND; the state condition is on the outer UPDATE too, so
-- no filter can move a waiting or running row. The row keeps its id,
-- sequence, payload and headers.
--
-- T-SQL points: the id and topic lists arrive as JSON arrays read by
-- OPENJSON (an empty array selects nothing, NULL everything); TRY_CAST
-- keeps a malformed id from failing the batch; TOP with a BIGINT bound;
-- WITH (UPDLOCK, READPAST, ROWLOCK) in place of FOR UPDATE SKIP LOCKED;
-- SYSUTCDATETIME() for the new schedule.
UPDATE {{.O.Table}}
SET {{.O.State}} = 'pending',
    {{.O.Attempt}} = 0,
    {{.O.ScheduledAt}} = SYSUTCDATETIME(),
    {{.O.LastError}} = NULL,
    {{.O.ClaimedAt}} = NULL,
    {{.O.ClaimToken}} = NULL,
    {{.O.LeaseExpiresAt}} = NULL,
    {{.O.UpdatedAt}} = SYSUTCDATETIME()
WHERE {{.O.State}} IN ('sent', 'dead')
  AND {{.O.ID}} IN (
    SELECT TOP (COALESCE(@p5, 9223372036854775807)) {{.O.ID}}
    FROM {{.O.Table}} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE {{.O.State}} IN ('sent', 'dead')
      AND {{template "replay_filter" .}})
