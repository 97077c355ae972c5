-- One whole inbox row for the workbench; the twin of the PostgreSQL
-- wb_get_inbox.sql.
--
-- T-SQL points: ids and the claim token read back as lower-case text; a
-- malformed id finds no row (the wb_id partial).
SELECT LOWER(CONVERT(NVARCHAR(36), {{.I.ID}})), {{.I.State}}, {{.I.Source}}, {{.I.EventType}}, {{.I.AggregateID}},
       {{.I.IdempotencyKey}}, {{.I.Consumption}}, {{.I.Attempt}}, {{.I.LastError}}, {{.I.CreatedAt}}, {{.I.ScheduledAt}},
       {{.I.ProcessedAt}}, {{.I.DiscardedAt}},
       {{.I.Payload}}, {{.I.Headers}}, {{.I.CorrelationID}}, {{.I.ClaimedAt}},
       LOWER(CONVERT(NVARCHAR(36), {{.I.ClaimToken}})), {{.I.LeaseExpiresAt}}
FROM {{.I.Table}}
WHERE {{.I.ID}} = {{template "wb_id" "@id"}}
