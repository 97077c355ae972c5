-- Tries the session-owned application lock of one capture identity once
-- (@p1 is the resource, queuebox_capture_<identity>): the twin of the
-- PostgreSQL session advisory lock. The session keeps it until it ends or
-- releases it. Answers sp_getapplock's status: 0 or 1 granted, -1 held by
-- another session, below -1 an error.
DECLARE @status INT;
EXEC @status = sys.sp_getapplock @Resource = @p1, @LockMode = N'Exclusive',
    @LockOwner = N'Session', @LockTimeout = 0;
SELECT @status;
