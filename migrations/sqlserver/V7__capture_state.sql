-- One row per capture identity: ties the state directory to this database
-- and records a fingerprint of the capture settings.
CREATE TABLE queuebox_capture_state (
    identity_name NVARCHAR(63) NOT NULL CONSTRAINT pk_queuebox_capture_state PRIMARY KEY,
    instance_id UNIQUEIDENTIFIER NOT NULL,
    fingerprint NVARCHAR(128) NOT NULL,
    created_at DATETIME2 NOT NULL CONSTRAINT df_capture_state_created_at DEFAULT GETUTCDATE(),
    updated_at DATETIME2 NOT NULL CONSTRAINT df_capture_state_updated_at DEFAULT GETUTCDATE()
);
GO
