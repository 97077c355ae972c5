-- Pauses of destinations, for the workbench.
--
-- Flow control lives in each deliver replica (its own circuit breaker,
-- its own Retry-After pauses). When a replica pauses a destination for a
-- while (its breaker opens, the destination asks for a Retry-After, the
-- broker refuses messages), it records here why and until when, one row
-- per destination and replica, replaced at each new pause: a write per
-- pause, never per outbox row, and never a column of the outbox, which
-- users may map to a table of their own. The workbench shows a pending
-- row whose destination has a pause that has not ended as deferred, with
-- the reason. A replica that dies leaves its row, which simply ends at
-- until_at; the next pause recorded deletes the pauses that have ended.
CREATE TABLE IF NOT EXISTS queuebox_destination_pauses (
    destination VARCHAR(200) NOT NULL,
    replica     VARCHAR(200) NOT NULL,
    reason      VARCHAR(32) NOT NULL,
    detail      TEXT,
    until_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    recorded_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (destination, replica)
);
