-- The cleanup state of the outbox ($1) and inbox ($2) tables, given by
-- their quoted names: live and dead row versions, the end of the last
-- automatic vacuum, and whether autovacuum may run on the table at all
-- (the server setting and the table's own storage parameter).
SELECT s.relid = to_regclass($1), s.n_live_tup, s.n_dead_tup, s.last_autovacuum,
       current_setting('autovacuum')::bool
         AND NOT COALESCE('autovacuum_enabled=false' = ANY (c.reloptions), false)
FROM pg_stat_user_tables s
JOIN pg_class c ON c.oid = s.relid
WHERE s.relid IN (to_regclass($1), to_regclass($2))
