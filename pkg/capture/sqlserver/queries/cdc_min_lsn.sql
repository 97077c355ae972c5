-- The lowest LSN still held for the capture instance (@p1), for a first
-- start or a stored LSN that cleanup already removed.
SELECT sys.fn_cdc_get_min_lsn(@p1);
