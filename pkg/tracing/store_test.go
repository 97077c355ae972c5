package tracing_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// fakeOutbox claims the rows it holds once; Finish keeps every outcome.
type fakeOutbox struct {
	queuebox.OutboxStore
	rows []queuebox.ClaimedMessage
}

func (f *fakeOutbox) Claim(context.Context, int) ([]queuebox.ClaimedMessage, error) {
	rows := f.rows
	f.rows = nil
	return rows, nil
}

func (f *fakeOutbox) Finish(_ context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	kept := map[string]bool{}
	for _, o := range outcomes {
		kept[o.Lease.ID] = true
	}
	return kept, nil
}

func TestOutboxStatementSpans(t *testing.T) {
	t.Parallel()
	rec, tp := newRecorder()
	m := &queuebox.OutboxMessage{ID: rowID}
	store := tracing.WrapOutbox(&fakeOutbox{rows: []queuebox.ClaimedMessage{{OutboxMessage: m}}},
		tracing.NewBatchWith(tp, propagation.TraceContext{}))
	ctx := context.Background()
	rows, err := store.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	_, err = store.Claim(ctx, 10) // an empty poll leaves no span
	require.NoError(t, err)
	_, err = store.Finish(ctx, []queuebox.Outcome{{Lease: queuebox.Lease{ID: rowID}, Kind: queuebox.OutcomeSent}})
	require.NoError(t, err)

	spans := rec.Ended()
	require.Len(t, spans, 2)
	require.Equal(t, "claim outbox", spans[0].Name())
	require.Equal(t, int64(10), attrs(spans[0])[tracing.BatchSizeKey].AsInt64())
	require.Equal(t, int64(1), attrs(spans[0])["queuebox.rows"].AsInt64())
	require.Equal(t, "finish outbox", spans[1].Name())
	require.Equal(t, int64(1), attrs(spans[1])[tracing.BatchSizeKey].AsInt64())
}

func TestBatchLinksTheRowsTraces(t *testing.T) {
	t.Parallel()
	rec, tp := newRecorder()
	b := tracing.NewBatchWith(tp, propagation.TraceContext{})
	_, end := b.Start(context.Background(), "relay forward", 2,
		[]map[string]string{{"Traceparent": traceparent}, {"x-tenant": "a"}})
	end(-1, nil)
	spans := rec.Ended()
	require.Len(t, spans, 1)
	require.Len(t, spans[0].Links(), 1, "a row without a context adds no link")
	require.Equal(t, senderParent, spans[0].Links()[0].SpanContext.SpanID().String())
	require.Nil(t, tracing.WrapOutbox(nil, nil), "a nil Batch wraps nothing")
}
