-- Counts the inserts (operation 2) after the stored LSN (@p1, exclusive)
-- up to @p2. Updates (3, 4) and deletes (1) wake nothing: QueueBox's own
-- state changes are updates. The function name comes from the capture
-- instance, a validated identifier.
SELECT COUNT_BIG(*)
FROM cdc.fn_cdc_get_all_changes_{{.Instance}}(sys.fn_cdc_increment_lsn(@p1), @p2, N'all')
WHERE __$operation = 2;
