-- Whether the SQL Server Agent runs: its sessions connect as program
-- "SQLAgent - ...". Seeing other sessions needs VIEW SERVER STATE; without
-- it the answer is -1 (unknown) rather than a false 0.
SELECT CASE WHEN HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE') = 1
    THEN (SELECT COUNT(*) FROM sys.dm_exec_sessions WHERE program_name LIKE N'SQLAgent%')
    ELSE -1 END;
