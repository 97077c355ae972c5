-- The oldest transaction open in this database besides the caller's own
-- session; the twin of the PostgreSQL file. On SQL Server it holds back
-- the truncation of the log and, under snapshot isolation, the cleanup of
-- the version store.
--
-- T-SQL points: the dynamic management views need VIEW SERVER STATE (VIEW
-- DATABASE STATE on Azure SQL); transaction_begin_time is local time, so
-- the age is measured against SYSDATETIME(), not SYSUTCDATETIME().
SELECT TOP (1) CAST(s.session_id AS BIGINT),
       CAST(DATEDIFF_BIG(MICROSECOND, t.transaction_begin_time, SYSDATETIME()) AS FLOAT) / 1000000.0,
       s.status,
       COALESCE(LEFT(q.text, 120), N'')
FROM sys.dm_tran_session_transactions AS st
JOIN sys.dm_tran_active_transactions AS t ON t.transaction_id = st.transaction_id
JOIN sys.dm_exec_sessions AS s ON s.session_id = st.session_id
LEFT JOIN sys.dm_exec_connections AS c ON c.session_id = s.session_id
OUTER APPLY sys.dm_exec_sql_text(c.most_recent_sql_handle) AS q
WHERE s.database_id = DB_ID() AND st.session_id <> @@SPID
ORDER BY t.transaction_begin_time
