-- One whole inbox row for the workbench.
SELECT {{.I.ID}}::text, {{.I.State}}, {{.I.Source}}, {{.I.EventType}}, {{.I.AggregateID}}, {{.I.IdempotencyKey}},
       {{.I.Consumption}}, {{.I.Attempt}}, {{.I.LastError}}, {{.I.CreatedAt}}, {{.I.ScheduledAt}}, {{.I.ProcessedAt}},
       {{.I.DiscardedAt}},
       {{.I.Payload}}::text, {{.I.Headers}}::text, {{.I.CorrelationID}}, {{.I.ClaimedAt}}, {{.I.ClaimToken}}::text,
       {{.I.LeaseExpiresAt}}
FROM {{.I.Table}}
WHERE {{.I.ID}} = @id::uuid
