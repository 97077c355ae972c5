-- Releases the session-owned application lock @p1 before its connection
-- is discarded; the end of the session would free it too.
EXEC sys.sp_releaseapplock @Resource = @p1, @LockOwner = N'Session';
