-- The highest LSN in the change tables.
SELECT sys.fn_cdc_get_max_lsn();
