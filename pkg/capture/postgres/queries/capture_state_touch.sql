-- Records that identity $1 started again.
UPDATE queuebox_capture_state SET updated_at = CURRENT_TIMESTAMP WHERE identity_name = $1;
