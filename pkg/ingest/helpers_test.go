package ingest_test

import (
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// t0 is the fixed clock of every test.
var t0 = time.UnixMilli(1_767_000_000_000)

var errDown = errors.New("connection refused")

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func str(s string) *string { return &s }

func yes() *bool { b := true; return &b }

// memStore is the in-memory inbox of the tests.
type memStore = ingesttest.Inbox

// source returns the receive options of a source with every path.
func source(name string) ingest.Source {
	return ingest.Source{
		Name: name, Consumption: ingest.ConsumptionPush,
		IdempotencyKeyPath: "$.id", EventTypePath: "$.type", AggregateIDPath: "$.customer",
	}
}

func withTransform(name, expr, onError string) ingest.Source {
	s := source(name)
	s.Transform = &ingest.TransformSpec{Expression: expr, TimeoutMs: 100, MaxDepth: 100, OnError: onError}
	return s
}

// recvEnv is one receiver over a memStore, without any HTTP.
type recvEnv struct {
	r   *ingest.Receiver
	mem *memStore
	reg *prometheus.Registry
}

func newReceiver(t *testing.T, src ingest.Source, tr ingest.Transport, store *memStore) recvEnv {
	t.Helper()
	return newReceiverWith(t, src, tr, store, ingest.Options{Transforms: ingest.Expressions((&ingesttest.Compiler{}).Compile)})
}

// newReceiverWith is newReceiver with the transforms and bounds of opts;
// it fills the store, the metrics, the log and the clock.
func newReceiverWith(t *testing.T, src ingest.Source, tr ingest.Transport, store *memStore, opts ingest.Options) recvEnv {
	t.Helper()
	ev := recvEnv{reg: prometheus.NewRegistry(), mem: store}
	m, err := ingest.NewMetrics(ev.reg)
	require.NoError(t, err)
	opts.Store, opts.Metrics, opts.Log, opts.Now = store, m, quietLog(), ingesttest.NewClock(t0).Now
	ev.r, err = ingest.NewReceiver(src, tr, opts)
	require.NoError(t, err)
	return ev
}

// counter reads one series of a counter family; 0 when absent.
func (ev recvEnv) counter(t *testing.T, name, label, value string) float64 {
	t.Helper()
	return ingesttest.Counter(t, ev.reg, name, label, value)
}

func msg(body string, kv ...string) ingest.Message {
	h := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return ingest.Message{Body: []byte(body), Headers: h}
}

func refusedValue(reason string) error { return &queuebox.RefusedValueError{Reason: reason} }
