-- The state row of identity @p1: the instance it was registered under and
-- the fingerprint of its settings; no row before the first start.
SELECT CONVERT(NVARCHAR(36), instance_id), fingerprint FROM queuebox_capture_state WHERE identity_name = @p1;
