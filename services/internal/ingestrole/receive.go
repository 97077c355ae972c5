package ingestrole

import (
	"slices"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
)

// receiveSource maps a configured source, HTTP or broker, onto the options
// of the receive step; pkg/ingest reads no configuration. src.Name must be
// set. It copies what it takes, so later changes to src do not reach the
// result; ingest.NewReceiver sets the defaults and validates.
func receiveSource(src *config.Source) ingest.Source {
	out := ingest.Source{
		Name: src.Name, Consumption: src.Consumption, IdempotencyKeyPath: src.IdempotencyKeyPath,
		EventTypePath: src.EventTypePath, AggregateIDPath: src.AggregateIDPath,
		IdempotencyKeyHeaders: slices.Clone(src.IdempotencyKeyHeaders), EventTypeHeader: src.EventTypeHeader,
		AttributeHeaders: ingest.AttributeHeaders{IdempotencyKey: src.AttributeHeaders.IdempotencyKey,
			AggregateID: src.AttributeHeaders.AggregateID, EventType: src.AttributeHeaders.EventType},
		TrustTraceContext: src.TrustTraceContext,
	}
	if src.Auth != nil && src.Auth.DeduplicateOnBody != nil {
		out.KeyFromBodyDigest = *src.Auth.DeduplicateOnBody
	}
	if f := src.Filter; f != nil {
		out.Filter = &ingest.FilterSpec{Require: rules(f.Require), Exclude: rules(f.Exclude)}
	}
	if t := src.Transform; t != nil {
		out.Transform = &ingest.TransformSpec{Expression: t.Expression, TimeoutMs: t.TimeoutMs,
			MaxDepth: t.MaxDepth, OnError: t.OnError}
	}
	return out
}

func rules(in []config.FilterRule) []ingest.FilterRule {
	if in == nil {
		return nil
	}
	out := make([]ingest.FilterRule, len(in))
	for i, r := range in {
		out[i] = ingest.FilterRule{Header: r.Header, Equals: r.Equals, In: slices.Clone(r.In), Matches: r.Matches, Exists: r.Exists}
	}
	return out
}
