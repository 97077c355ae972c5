-- Lanes and fan-out (see the PostgreSQL file of the same version for
-- why): destination is the lane's destination, '' until QueueBox routes
-- the row; origin_id names the row the application wrote on each
-- delivery that a route with several destinations adds.
--
-- The columns come in a batch of their own, before the batch that
-- indexes them: SQL Server compiles a whole batch before it runs it, and
-- a column added in the same batch is unknown to that compilation.
-- Filtered indexes need QUOTED_IDENTIFIER ON (sqlcmd -I). A filter may
-- hold an IN list and comparisons joined by AND, never OR, as in V11 and
-- V14; every claim probe repeats the filter word for word, so that the
-- optimizer matches it with a literal, not a parameter.
--
-- Adding a NOT NULL column with a constant default changes only
-- metadata on the editions that support online column adds (Enterprise,
-- Azure SQL); elsewhere it writes every row. A plain CREATE INDEX blocks
-- writes to the outbox while it builds: on a large outbox, apply this
-- file in a quiet window, or build the indexes WITH (ONLINE = ON) by hand
-- first where the edition allows it and leave those lines out of your
-- copy (the file does not look for an index of the same name). Every old
-- replica must stop before this migration runs: an older claim orders a
-- key across all its destinations and knows no routing.
SET QUOTED_IDENTIFIER ON;
GO

ALTER TABLE outbox ADD destination NVARCHAR(200) NOT NULL CONSTRAINT df_outbox_destination DEFAULT '';
ALTER TABLE outbox ADD origin_id UNIQUEIDENTIFIER NULL;
GO

CREATE INDEX idx_outbox_lane_sequence ON outbox ([key], destination, sequence)
    WHERE state IN ('pending', 'processing') AND [key] > '';
CREATE INDEX idx_outbox_unrouted ON outbox (sequence)
    WHERE state = 'pending' AND destination = '' AND [key] > '';
CREATE INDEX idx_outbox_origin ON outbox (origin_id)
    WHERE origin_id IS NOT NULL;
GO

-- The lane index leads with the same key column, so the claim needs the
-- index of V11 no more.
DROP INDEX IF EXISTS idx_outbox_key_sequence ON outbox;
GO
