-- The state row of identity $1: the instance it was registered under and
-- the fingerprint of its settings; no row before the first start.
SELECT instance_id::text, fingerprint FROM queuebox_capture_state WHERE identity_name = $1;
