-- Claims are fenced on a token and a lease from here on. Every old worker
-- must stop before this migration runs (see the upgrade guide).
ALTER TABLE outbox ADD COLUMN claim_token UUID;
ALTER TABLE outbox ADD COLUMN lease_expires_at TIMESTAMPTZ;

ALTER TABLE inbox ADD COLUMN claim_token UUID;
ALTER TABLE inbox ADD COLUMN lease_expires_at TIMESTAMPTZ;
-- Existing rows become push rows, which keeps their behaviour.
ALTER TABLE inbox ADD COLUMN consumption VARCHAR(4) NOT NULL DEFAULT 'push'
    CHECK (consumption IN ('push', 'pull'));
ALTER TABLE inbox ADD COLUMN scheduled_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE inbox ADD COLUMN attempt INT NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN last_error TEXT;

CREATE INDEX idx_inbox_consumption_pending ON inbox (consumption, state, scheduled_at);
