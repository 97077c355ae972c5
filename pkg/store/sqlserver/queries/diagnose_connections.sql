-- The server's connection limit and the user sessions open on the whole
-- server; the twin of the PostgreSQL file. SQL Server keeps no
-- connections aside for administrators (the dedicated admin connection
-- is outside the limit), so the reserved count is 0.
SELECT CAST(@@MAX_CONNECTIONS AS INT), 0,
       CAST((SELECT COUNT(*) FROM sys.dm_exec_sessions WHERE is_user_process = 1) AS INT)
