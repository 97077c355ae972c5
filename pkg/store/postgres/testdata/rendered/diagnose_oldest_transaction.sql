-- The oldest transaction of this database that holds back cleanup: one
-- with a transaction id or a snapshot (backend_xmin). VACUUM keeps every
-- row version that died after it started. The caller's own session does
-- not count.
SELECT pid, EXTRACT(EPOCH FROM now() - xact_start)::float8, COALESCE(state, ''), left(query, 120)
FROM pg_stat_activity
WHERE datname = current_database()
  AND pid <> pg_backend_pid()
  AND xact_start IS NOT NULL
  AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)
ORDER BY xact_start
LIMIT 1
