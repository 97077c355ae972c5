-- The claim time of both tables, and the indexes the reclaim step reads.
SET QUOTED_IDENTIFIER ON;
GO

ALTER TABLE outbox ADD claimed_at DATETIME2 NULL;
ALTER TABLE inbox ADD claimed_at DATETIME2 NULL;
GO

CREATE INDEX idx_outbox_processing_claimed ON outbox (claimed_at) WHERE state = 'processing';
CREATE INDEX idx_inbox_processing_claimed ON inbox (claimed_at) WHERE state = 'processing';
GO
