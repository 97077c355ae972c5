-- One whole outbox row for the workbench.
SELECT {{.O.ID}}::text, {{.O.State}}, {{.O.Topic}}, {{.O.Key}}, {{.O.Attempt}}, {{.O.MaxAttempts}}, {{.O.LastError}},
       {{.O.CreatedAt}}, {{.O.ScheduledAt}}, {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.DiscardedAt}},
       {{if .O.Lanes}}{{.O.Destination}}, {{.O.OriginID}}::text{{else}}''::text, NULL::text{{end}},
       {{.O.Payload}}::text, {{.O.Headers}}::text, {{.O.AggregateType}}, {{.O.ClaimedAt}}, {{.O.ClaimToken}}::text,
       {{.O.LeaseExpiresAt}}
FROM {{.O.Table}}
WHERE {{.O.ID}} = @id::uuid
