-- The insert order of the outbox. The claim orders the rows of one key by
-- it. Every old replica must stop before this migration runs.
SET QUOTED_IDENTIFIER ON;
GO

CREATE SEQUENCE outbox_sequence_seq AS BIGINT START WITH 1 INCREMENT BY 1;
GO

ALTER TABLE outbox ADD sequence BIGINT NULL;
GO

-- Number the rows that exist in created_at order, so their key order holds.
WITH numbered AS (
    SELECT sequence, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n
    FROM outbox
)
UPDATE numbered SET sequence = n;
GO

DECLARE @next BIGINT = (SELECT COALESCE(MAX(sequence), 0) + 1 FROM outbox);
DECLARE @restart NVARCHAR(200) = N'ALTER SEQUENCE outbox_sequence_seq RESTART WITH ' + CAST(@next AS NVARCHAR(20));
EXEC sp_executesql @restart;
GO

ALTER TABLE outbox ALTER COLUMN sequence BIGINT NOT NULL;
ALTER TABLE outbox ADD CONSTRAINT df_outbox_sequence DEFAULT (NEXT VALUE FOR outbox_sequence_seq) FOR sequence;
GO

CREATE INDEX idx_outbox_key_sequence ON outbox ([key], sequence)
    WHERE state IN ('pending', 'processing');
GO
