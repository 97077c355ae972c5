-- The delivery ledger: one row per attempt of an outbox row.
--
-- The outbox keeps only the last attempt of a row (attempt, last_error).
-- An operator who asks "what did the receiver say each time?" needs every
-- attempt, so deliver records one row here for each outcome it writes:
-- sent, failed (a retry follows), deferred (no attempt spent: the
-- destination could not take the row) and dead. The row is written by
-- the same statement that writes the outcome, and only for the rows whose
-- claim fence held, so a lost claim records nothing and the ledger never
-- holds an attempt that the outbox does not show.
--
-- outbox_id is the outbox row; message_id the id the destination
-- received (the origin of a fan-out delivery, or the row itself), so the
-- deliveries of one message read together. attempt is the row's attempt
-- at the publish (the X-Attempt header). status is the destination's
-- answer code (an HTTP status as text), answer the start of its answer
-- body or of the error, redacted as last_error is. No foreign key ties a
-- row to the outbox: retention deletes the two tables apart, and the
-- ledger is written by an OUTPUT clause on SQL Server, which a foreign
-- key forbids (the SQL Server file keeps the same shape).
--
-- The table is QueueBox's own and keeps its name whatever the outbox is
-- called (database.outboxTableName). It is new and empty: creating it
-- locks nothing, and an older build ignores it.
CREATE TABLE IF NOT EXISTS outbox_attempts (
    id            BIGSERIAL PRIMARY KEY,
    outbox_id     UUID NOT NULL,
    message_id    UUID NOT NULL,
    destination   VARCHAR(200) NOT NULL,
    attempt       INT NOT NULL,
    started_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    duration_ms   INT NOT NULL,
    outcome       VARCHAR(16) NOT NULL,
    failure_class VARCHAR(32),
    status        VARCHAR(64),
    answer        TEXT,
    recorded_at   TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The attempts of one row, newest first (the workbench); the attempts of
-- one destination over a window (its statistics); and the oldest rows
-- (the ledger's retention, which deletes by started_at).
CREATE INDEX IF NOT EXISTS idx_outbox_attempts_outbox ON outbox_attempts (outbox_id, id);
CREATE INDEX IF NOT EXISTS idx_outbox_attempts_destination ON outbox_attempts (destination, started_at);
CREATE INDEX IF NOT EXISTS idx_outbox_attempts_started ON outbox_attempts (started_at);
