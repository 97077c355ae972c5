-- Takes back the registration of identity @p1 under instance @p2 when the
-- identity file could not be written after it, so that the next start is
-- a first start again instead of a state-missing fault.
DELETE FROM queuebox_capture_state WHERE identity_name = @p1 AND instance_id = CONVERT(UNIQUEIDENTIFIER, @p2);
