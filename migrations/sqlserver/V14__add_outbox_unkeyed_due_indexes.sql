-- The two indexes of the unkeyed part of the outbox claim (see the
-- PostgreSQL file of the same version for why). Filtered indexes need
-- QUOTED_IDENTIFIER ON (sqlcmd -I).
SET QUOTED_IDENTIFIER ON;
GO

CREATE INDEX idx_outbox_unkeyed_due ON outbox (scheduled_at, sequence)
    WHERE state = 'pending' AND [key] IS NULL;
CREATE INDEX idx_outbox_empty_key_due ON outbox (scheduled_at, sequence)
    WHERE state = 'pending' AND [key] = '';
GO
