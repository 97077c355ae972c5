-- One whole outbox row for the workbench; the twin of the PostgreSQL
-- wb_get_outbox.sql.
--
-- T-SQL points: ids and the claim token read back as lower-case text; a
-- malformed id finds no row (the wb_id partial).
SELECT LOWER(CONVERT(NVARCHAR(36), {{.O.ID}})), {{.O.State}}, {{.O.Topic}}, {{.O.Key}}, {{.O.Attempt}}, {{.O.MaxAttempts}},
       {{.O.LastError}}, {{.O.CreatedAt}}, {{.O.ScheduledAt}}, {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.DiscardedAt}},
       {{if .O.Lanes}}{{.O.Destination}}, LOWER(CONVERT(NVARCHAR(36), {{.O.OriginID}})){{else}}N'', CAST(NULL AS NVARCHAR(36)){{end}},
       {{.O.Payload}}, {{.O.Headers}}, {{.O.AggregateType}}, {{.O.ClaimedAt}},
       LOWER(CONVERT(NVARCHAR(36), {{.O.ClaimToken}})), {{.O.LeaseExpiresAt}}
FROM {{.O.Table}}
WHERE {{.O.ID}} = {{template "wb_id" "@id"}}
