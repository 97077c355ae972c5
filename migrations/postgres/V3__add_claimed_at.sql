-- The claim time of both tables, and the indexes the reclaim step reads.
ALTER TABLE outbox ADD COLUMN claimed_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE inbox ADD COLUMN claimed_at TIMESTAMP WITH TIME ZONE;

CREATE INDEX idx_outbox_processing_claimed ON outbox (claimed_at) WHERE state = 'processing';
CREATE INDEX idx_inbox_processing_claimed ON inbox (claimed_at) WHERE state = 'processing';
