-- The distinct topics of the sent and dead rows a replay could move; the
-- twin of the PostgreSQL outbox_replay_topics.sql.
--
-- T-SQL points: the filters of the replay_filter partial (OPENJSON lists,
-- DATETIME2 bounds).
SELECT DISTINCT {{.O.Topic}}
FROM {{.O.Table}}
WHERE {{.O.State}} IN ('sent', 'dead')
  AND {{template "replay_filter" .}}
