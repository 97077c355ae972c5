-- One row per capture identity: ties the state directory to this database
-- and records a fingerprint of the capture settings.
CREATE TABLE queuebox_capture_state (
    identity_name VARCHAR(63) PRIMARY KEY,
    instance_id UUID NOT NULL,
    fingerprint VARCHAR(128) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);
