-- Counts the sent and dead rows a replay would move, up to @p5 rows
-- (NULL: no bound); the twin of the PostgreSQL outbox_replay_count.sql.
--
-- T-SQL points: TOP with a BIGINT bound inside, COUNT_BIG outside; the
-- filters of the replay_filter partial (OPENJSON lists).
SELECT COUNT_BIG(*)
FROM (
  SELECT TOP (COALESCE(@p5, 9223372036854775807)) 1 AS one
  FROM {{.O.Table}}
  WHERE {{.O.State}} IN ('sent', 'dead')
    AND {{template "replay_filter" .}}) AS selected
