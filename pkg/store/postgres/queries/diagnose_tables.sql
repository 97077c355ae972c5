-- The cleanup state of the outbox ($1) and inbox ($2) tables, given by
-- their quoted names: live and dead row versions, the end of the last
-- automatic vacuum, and whether autovacuum may run on the table at all
-- (the server setting and the table's own storage parameter). A
-- partitioned table keeps no rows and no statistics of its own, so its
-- figures are those of its partitions: the sums of the row versions, the
-- latest autovacuum of any partition, and autovacuum off when it is off
-- for any partition.
SELECT t.oid = to_regclass($1), sum(s.n_live_tup)::bigint, sum(s.n_dead_tup)::bigint, max(s.last_autovacuum),
       current_setting('autovacuum')::bool
         AND NOT bool_or(COALESCE('autovacuum_enabled=false' = ANY (c.reloptions), false))
FROM (SELECT to_regclass($1) AS oid UNION ALL SELECT to_regclass($2)) AS t
CROSS JOIN LATERAL (SELECT t.oid AS relid UNION ALL SELECT inhrelid FROM pg_inherits WHERE inhparent = t.oid) AS p
JOIN pg_stat_user_tables s ON s.relid = p.relid
JOIN pg_class c ON c.oid = s.relid AND c.relkind <> 'p'
GROUP BY t.oid
