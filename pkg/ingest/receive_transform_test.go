package ingest_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

var broker = ingest.Transport{DeadLetter: true, BrokerAttributes: true}

// The error strategies of the source stage, per transport
// (32_Transforms_and_templates).
func TestReceiveTransformStrategies(t *testing.T) {
	t.Parallel()
	const body = `{"id":"1","type":"t.x"}`
	const failed = "Transform failed: boom at position 3"
	tests := []struct {
		name, expr, onError string
		tr                  ingest.Transport
		outcome             ingest.Outcome
		message             string // Decision.Message
		stored              string // payload of the row, if one is stored
	}{
		{name: "http applied", expr: "wrap", onError: "Fail", outcome: ingest.Stored, stored: `{"data":` + body + `}`},
		{name: "http Fail", expr: "fail", onError: "Fail", outcome: ingest.Rejected, message: failed},
		{name: "http Dead", expr: "fail", onError: "Dead", outcome: ingest.Rejected, message: failed},
		{name: "http Skip", expr: "fail", onError: "Skip", outcome: ingest.Stored, stored: body},
		{name: "broker applied", expr: "wrap", onError: "Fail", tr: broker, outcome: ingest.Stored, stored: `{"data":` + body + `}`},
		{name: "broker Fail", expr: "fail", onError: "Fail", tr: broker, outcome: ingest.Dead, stored: body,
			message: "sources.s.transform (onError Fail): boom at position 3"},
		{name: "broker Dead", expr: "fail", onError: "Dead", tr: broker, outcome: ingest.Dead, stored: body,
			message: "sources.s.transform (onError Dead): boom at position 3"},
		{name: "broker result not JSON", expr: "text", onError: "Fail", tr: broker, outcome: ingest.Dead, stored: body,
			message: "sources.s.transform (onError Fail): the result is not a JSON document"},
		{name: "broker Skip", expr: "fail", onError: "Skip", tr: broker, outcome: ingest.Stored, stored: body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, withTransform("s", tt.expr, tt.onError), tt.tr, &memStore{})
			d, err := ev.r.Receive(context.Background(), msg(body))
			require.NoError(t, err)
			require.Equal(t, tt.outcome, d.Outcome)
			require.Equal(t, tt.message, d.Message)
			rows := ev.mem.Rows()
			if tt.stored == "" {
				require.Empty(t, rows)
				require.True(t, d.Permanent)
			} else {
				require.Len(t, rows, 1)
				require.Equal(t, rows[0].ID, d.ID)
				require.JSONEq(t, tt.stored, string(rows[0].Payload))
				require.Equal(t, "1", rows[0].IdempotencyKey)
				require.Equal(t, "t.x", *rows[0].EventType)
			}
			if tt.outcome == ingest.Dead {
				require.Equal(t, queuebox.StateDead, rows[0].State)
				require.Equal(t, tt.message, *rows[0].LastError)
			}
			counted := 0.0
			if tt.outcome == ingest.Rejected || tt.outcome == ingest.Dead {
				counted = 1
			}
			require.Equal(t, counted, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "transform_failed"))
		})
	}
}

func TestReceiveTransformTimeoutMayPassLater(t *testing.T) {
	t.Parallel()
	src := withTransform("s", "slow", "Fail")
	src.Transform.TimeoutMs = 1
	ev := newReceiver(t, src, ingest.Transport{}, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg(`{"id":"1"}`))
	require.NoError(t, err)
	require.Equal(t, ingest.Rejected, d.Outcome)
	require.Equal(t, "Transform failed: the evaluation ran past timeoutMs (1 ms)", d.Message)
	require.False(t, d.Permanent)
}

// A ctx that ends while the transform runs is no failure of the message:
// nothing is stored, not even a dead row, and the sender must try again.
func TestReceiveCancelledDuringTheTransform(t *testing.T) {
	t.Parallel()
	for _, tr := range []ingest.Transport{{}, broker} {
		src := withTransform("s", "slow", "Fail")
		src.Transform.TimeoutMs = 0
		ev := newReceiver(t, src, tr, &memStore{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		d, err := ev.r.Receive(ctx, msg(`{"id":"1"}`))
		require.ErrorIs(t, err, context.Canceled)
		require.Zero(t, d.Outcome)
		require.Empty(t, ev.mem.Rows())
		require.Equal(t, 0.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "transform_failed"))
	}
}

func TestReceiveTransformSeesTheReceiptTime(t *testing.T) {
	t.Parallel()
	rec := &ingesttest.Compiler{}
	src := withTransform("s", "wrap", "Fail")
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	r, err := ingest.NewReceiver(src, ingest.Transport{}, ingest.Options{
		Store: &memStore{}, Metrics: m, Transforms: ingest.Expressions(rec.Compile), Now: func() time.Time { return t0 },
	})
	require.NoError(t, err)
	given := msg(`{"id":"1"}`)
	given.ReceivedAt = t0.Add(-time.Minute)
	_, err = r.Receive(context.Background(), given)
	require.NoError(t, err)
	_, err = r.Receive(context.Background(), msg(`{"id":"2"}`))
	require.NoError(t, err)
	vars := rec.Vars()
	require.Equal(t, t0.Add(-time.Minute).UTC().Format(time.RFC3339Nano), vars[0]["timestamp"])
	require.Equal(t, t0.UTC().Format(time.RFC3339Nano), vars[1]["timestamp"], "zero takes the clock of Options.Now")
}
