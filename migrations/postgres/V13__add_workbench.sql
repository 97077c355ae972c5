-- The operator's workbench (admin API, CLI and UI).
--
-- discarded_at marks a dead row that an operator chose not to deliver: the
-- row stays, with its payload and error, as the record of that choice, and
-- retention deletes it later like any other dead row. Lists hide it.
--
-- The partial index serves the workbench's most common page, the newest
-- dead outbox rows, without reading the live rows: the outbox lists by
-- sequence, and no other index leads with it. It holds the dead rows
-- only, so it costs the claim path nothing. (The inbox lists by
-- created_at, which idx_inbox_state_created already serves per state.)
-- A plain CREATE INDEX blocks writes to the table while it builds; on a
-- large outbox, create it CONCURRENTLY by hand before the upgrade (the
-- upgrade notes say how) and this file then skips it.
--
-- queuebox_replay_jobs holds the replays that run in the background: the
-- filter, the counts, the id the walk has reached (cursor_id; each batch
-- moves rows past it and records the new value in the same transaction,
-- so a restarted job never moves a row twice) and the lease of the
-- process that runs it.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS discarded_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS discarded_at TIMESTAMP WITH TIME ZONE;

CREATE INDEX IF NOT EXISTS idx_outbox_dead_sequence ON outbox (sequence) WHERE state = 'dead';

CREATE TABLE IF NOT EXISTS queuebox_replay_jobs (
    id               UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    table_name       VARCHAR(16) NOT NULL,
    filter           JSONB NOT NULL,
    matched          BIGINT NOT NULL,
    moved            BIGINT NOT NULL DEFAULT 0,
    cursor_id        UUID,
    done             BOOLEAN NOT NULL DEFAULT FALSE,
    error            TEXT,
    created_at       TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    finished_at      TIMESTAMP WITH TIME ZONE,
    lease_token      UUID,
    lease_expires_at TIMESTAMP WITH TIME ZONE
);
CREATE INDEX IF NOT EXISTS idx_replay_jobs_open ON queuebox_replay_jobs (created_at) WHERE NOT done;
