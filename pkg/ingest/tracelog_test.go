package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// TestReceiveLogLinesCarryTheTrace: a line the receiver writes about one
// message (here a failed inbox write and a rejection) carries the trace and
// span ids of the request or message it handles, so an operator can go
// from the line to the trace.
func TestReceiveLogLinesCarryTheTrace(t *testing.T) {
	t.Parallel()
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	for _, tt := range []struct {
		name, body, line string
		store            *memStore
	}{
		{"failed inbox write", `{"id":"a"}`, "inbox write failed", &memStore{Fail: errDown}},
		{"rejected message", `{"type":"x"}`, "message rejected", &memStore{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			log := slog.New(tracing.NewLogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
			m, err := ingest.NewMetrics(prometheus.NewRegistry())
			require.NoError(t, err)
			r, err := ingest.NewReceiver(source("s"), ingest.Transport{}, ingest.Options{
				Store: tt.store, Metrics: m, Log: log, Now: ingesttest.NewClock(t0).Now})
			require.NoError(t, err)
			_, _ = r.Receive(ctx, msg(tt.body))
			require.Contains(t, buf.String(), tt.line)
			require.Contains(t, buf.String(), `"trace_id":"`+sc.TraceID().String()+`"`)
			require.Contains(t, buf.String(), `"span_id":"`+sc.SpanID().String()+`"`)
		})
	}
}

// TestGroupLogLinesCarryEachMessagesTrace: the messages of one broker
// group share one store and one ctx, yet the line logged about each one
// (here two rejections) carries that message's own trace, from its
// LogContext.
func TestGroupLogLinesCarryEachMessagesTrace(t *testing.T) {
	t.Parallel()
	spanOf := func(b byte) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
			SpanID:  trace.SpanID{b, 1, 2, 3, 4, 5, 6, 7}, TraceFlags: trace.FlagsSampled,
		})
	}
	var buf bytes.Buffer
	log := slog.New(tracing.NewLogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	r, err := ingest.NewReceiver(source("s"), ingest.Transport{}, ingest.Options{
		Store: &memStore{}, Metrics: m, Log: log, Now: ingesttest.NewClock(t0).Now})
	require.NoError(t, err)
	group := []ingest.Message{msg(`{"type":"x"}`), msg(`{"type":"y"}`)}
	spans := []trace.SpanContext{spanOf(0xa1), spanOf(0xb2)}
	for i := range group {
		group[i].LogContext = trace.ContextWithSpanContext(context.Background(), spans[i])
	}
	_, err = r.ReceiveBatch(context.Background(), group)
	require.NoError(t, err)

	var traces []string
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var rec struct {
			Msg     string `json:"msg"`
			TraceID string `json:"trace_id"`
		}
		require.NoError(t, json.Unmarshal(line, &rec))
		if rec.Msg == "message rejected" {
			traces = append(traces, rec.TraceID)
		}
	}
	require.Equal(t, []string{spans[0].TraceID().String(), spans[1].TraceID().String()}, traces)
}
