-- Registers identity $1 on its first start under instance $2, with the
-- fingerprint $3 of the settings its positions mean something under.
INSERT INTO queuebox_capture_state (identity_name, instance_id, fingerprint) VALUES ($1, $2, $3);
