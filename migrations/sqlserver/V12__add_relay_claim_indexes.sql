-- The two indexes of the relay claim (see the PostgreSQL file of the same
-- version for why). Filtered indexes need QUOTED_IDENTIFIER ON (sqlcmd -I).
SET QUOTED_IDENTIFIER ON;
GO

CREATE INDEX idx_inbox_push_heads ON inbox (aggregate_id, state, created_at, id)
    WHERE consumption = 'push' AND state IN ('pending', 'processing') AND aggregate_id IS NOT NULL;
CREATE INDEX idx_inbox_push_unkeyed ON inbox (created_at, id)
    WHERE consumption = 'push' AND state = 'pending' AND aggregate_id IS NULL;
GO
