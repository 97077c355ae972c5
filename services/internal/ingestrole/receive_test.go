package ingestrole

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
)

func ptr[T any](v T) *T { return &v }

func TestReceiveSourceMapsEveryField(t *testing.T) {
	t.Parallel()
	src := &config.Source{
		Name: "orders", Kind: config.KindRabbitMQ, Consumption: config.ConsumptionPull,
		IdempotencyKeyPath: "$.id", EventTypePath: "$.type", AggregateIDPath: "$.customer",
		AttributeHeaders: config.AttributeHeaders{IdempotencyKey: "X-Key", AggregateID: "X-Agg", EventType: "X-Type"},
		Filter: &config.Filter{
			Require: []config.FilterRule{{Header: "X-Env", Equals: ptr("prod")}, {Header: "X-Region", In: []string{"eu", "us"}}},
			Exclude: []config.FilterRule{{Header: "X-Test", Exists: ptr(true)}, {Header: "X-Event", Matches: ptr("debug.*")}},
		},
		Transform: &config.Transform{Expression: "$", TimeoutMs: 250, MaxDepth: 40, OnError: config.OnErrorDead},
	}
	got := receiveSource(src)
	require.Equal(t, ingest.Source{
		Name: "orders", Consumption: ingest.ConsumptionPull,
		IdempotencyKeyPath: "$.id", EventTypePath: "$.type", AggregateIDPath: "$.customer",
		AttributeHeaders: ingest.AttributeHeaders{IdempotencyKey: "X-Key", AggregateID: "X-Agg", EventType: "X-Type"},
		Filter: &ingest.FilterSpec{
			Require: []ingest.FilterRule{{Header: "X-Env", Equals: ptr("prod")}, {Header: "X-Region", In: []string{"eu", "us"}}},
			Exclude: []ingest.FilterRule{{Header: "X-Test", Exists: ptr(true)}, {Header: "X-Event", Matches: ptr("debug.*")}},
		},
		Transform: &ingest.TransformSpec{Expression: "$", TimeoutMs: 250, MaxDepth: 40, OnError: ingest.OnErrorDead},
	}, got)

	src.Filter.Require[1].In[0] = "changed"
	require.Equal(t, "eu", got.Filter.Require[1].In[0], "the result does not share the config's lists")
}

func TestReceiveSourceWithoutFilterOrTransform(t *testing.T) {
	t.Parallel()
	got := receiveSource(&config.Source{Name: "plain", IdempotencyKeyPath: "$.id"})
	require.Nil(t, got.Filter)
	require.Nil(t, got.Transform)
	require.Equal(t, ingest.Source{Name: "plain", IdempotencyKeyPath: "$.id"}, got)
}

// The constants that the mapping passes through unchanged are the same
// words in both packages.
func TestReceiveSourceKeepsTheConfigWords(t *testing.T) {
	t.Parallel()
	require.Equal(t, config.ConsumptionPush, ingest.ConsumptionPush)
	require.Equal(t, config.ConsumptionPull, ingest.ConsumptionPull)
	require.Equal(t, config.OnErrorFail, ingest.OnErrorFail)
	require.Equal(t, config.OnErrorSkip, ingest.OnErrorSkip)
	require.Equal(t, config.OnErrorDead, ingest.OnErrorDead)
}
