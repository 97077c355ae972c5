-- Registers identity @p1 on its first start under instance @p2, with the
-- fingerprint @p3 of the settings its positions mean something under.
INSERT INTO queuebox_capture_state (identity_name, instance_id, fingerprint) VALUES (@p1, CONVERT(UNIQUEIDENTIFIER, @p2), @p3);
