-- Records that identity @p1 started again.
UPDATE queuebox_capture_state SET updated_at = SYSUTCDATETIME() WHERE identity_name = @p1;
