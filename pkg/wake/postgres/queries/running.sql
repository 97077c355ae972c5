-- Returns those of the 32-bit xids in $1 that a snapshot does not count
-- as finished: $2 when set (tests give a literal one), a new one when
-- NULL.
-- The stream gives 32-bit ids; the snapshot functions take 64-bit ones
-- (epoch and xid), so each id is placed at its signed 32-bit distance
-- from the snapshot's xmax: running transactions span far less than 2^31
-- ids, so the nearest one is it. pg_visible_in_snapshot is false for an
-- id at or past xmax and for one in the snapshot's list of running ids.
-- (PostgreSQL 13 and later.)
SELECT x FROM unnest($1::bigint[]) AS x, (SELECT COALESCE($2::text::pg_snapshot, pg_current_snapshot()) AS snap) AS s
WHERE NOT pg_visible_in_snapshot((pg_snapshot_xmax(s.snap)::text::bigint
  + (x - pg_snapshot_xmax(s.snap)::text::bigint % 4294967296 + 6442450944) % 4294967296 - 2147483648)::text::xid8, s.snap);
