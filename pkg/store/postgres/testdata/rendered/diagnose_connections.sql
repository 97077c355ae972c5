-- The server's connection limit, the connections it keeps for
-- superusers, and the client sessions open on the whole server (the limit
-- is the server's, not one database's).
SELECT current_setting('max_connections')::int,
       current_setting('superuser_reserved_connections')::int,
       (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int
