package ingest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestReceiveDecisions(t *testing.T) {
	t.Parallel()
	filtered := source("s")
	filtered.Filter = &ingest.FilterSpec{Exclude: []ingest.FilterRule{{Header: "X-Test", Exists: yes()}}}
	tests := []struct {
		name   string
		msg    ingest.Message
		refuse error
		want   ingest.Decision // ID and CorrelationID are checked apart
		rows   int
	}{
		{name: "stored", msg: msg(`{"id":"a"}`), want: ingest.Decision{Outcome: ingest.Stored}, rows: 1},
		{name: "filtered", msg: msg(`not json`, "x-test", "1"), want: ingest.Decision{Outcome: ingest.Filtered}},
		{name: "invalid JSON", msg: msg(`{"id":`), want: ingest.Decision{Outcome: ingest.Rejected,
			Reason: "extraction_failed", Message: "Invalid JSON", Permanent: true}},
		{name: "NUL", msg: msg(`{"id":"a","n":"\u0000"}`), want: ingest.Decision{Outcome: ingest.Rejected,
			Reason: "extraction_failed", Message: `Invalid JSON: a string holds \u0000, which the database cannot store`, Permanent: true}},
		{name: "no key", msg: msg(`{"other":1}`), want: ingest.Decision{Outcome: ingest.Rejected,
			Reason: "extraction_failed", Message: "Idempotency key not found at $.id", Permanent: true}},
		{name: "header key is not read on HTTP", msg: msg(`{}`, "x-idempotency-key", "k"), want: ingest.Decision{Outcome: ingest.Rejected,
			Reason: "extraction_failed", Message: "Idempotency key not found at $.id", Permanent: true}},
		{name: "refused value", msg: msg(`{"id":"a","n":1e999}`), refuse: refusedValue("numeric field overflow"),
			want: ingest.Decision{Outcome: ingest.Rejected, Reason: "extraction_failed",
				Message: "The database cannot store this message: numeric field overflow", Permanent: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &memStore{Refuse: func(queuebox.ReceivedRow) error { return tt.refuse }}
			ev := newReceiver(t, filtered, ingest.Transport{}, store)
			d, err := ev.r.Receive(context.Background(), tt.msg)
			require.NoError(t, err)
			rows := store.Rows()
			require.Len(t, rows, tt.rows)
			if tt.rows > 0 {
				require.Equal(t, rows[0].ID, d.ID)
			}
			if tt.want.Outcome == ingest.Filtered {
				require.Empty(t, d.CorrelationID, "the filter runs before the correlation id is chosen")
				require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_filtered_total", "source", "s"))
			} else {
				require.NotEmpty(t, d.CorrelationID, "a new UUID stands in for a missing one")
			}
			if tt.want.Reason != "" {
				require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", tt.want.Reason))
			}
			d.ID, d.CorrelationID = "", ""
			require.Equal(t, tt.want, d)
		})
	}
}

func TestReceiveDuplicate(t *testing.T) {
	t.Parallel()
	ev := newReceiver(t, source("s"), ingest.Transport{}, &memStore{})
	first, err := ev.r.Receive(context.Background(), msg(`{"id":"a"}`))
	require.NoError(t, err)
	require.Equal(t, ingest.Stored, first.Outcome)
	again, err := ev.r.Receive(context.Background(), msg(`{"id":"a","v":2}`))
	require.NoError(t, err)
	require.Equal(t, ingest.Duplicate, again.Outcome)
	require.Empty(t, again.ID)
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "duplicate"))
}

func TestReceiveStorageFailureIsAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tr   ingest.Transport
		body string
	}{
		{"http", ingest.Transport{}, `{"id":"a"}`},
		{"broker", ingest.Transport{DeadLetter: true, BrokerAttributes: true}, `{"id":"a"}`},
		{"broker dead row", ingest.Transport{DeadLetter: true, BrokerAttributes: true}, `not json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, source("s"), tt.tr, &memStore{Fail: errDown})
			m := msg(tt.body)
			m.CorrelationID = "c-1"
			d, err := ev.r.Receive(context.Background(), m)
			require.ErrorIs(t, err, errDown)
			require.Equal(t, ingest.Decision{CorrelationID: "c-1"}, d, "no outcome: the sender must try again")
			require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "storage_failed"))
			require.Equal(t, 0.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "extraction_failed"))
		})
	}
}

func TestReceiveRowColumns(t *testing.T) {
	t.Parallel()
	src := source("s")
	src.Filter = &ingest.FilterSpec{Require: []ingest.FilterRule{{Header: "X-Partner-Key", Exists: yes()}}}
	ev := newReceiver(t, src, ingest.Transport{OmitHeaders: []string{"X-Partner-Key"}}, &memStore{})
	m := msg(`{"id":"a","type":"t","customer":"c"}`, "x-partner-key", "secret", "cookie", "z", "x-tenant", "acme")
	m.CorrelationID = "corr\x01-" + strings.Repeat("x", 200)
	m.ReceivedAt = t0.Add(-time.Hour)
	d, err := ev.r.Receive(context.Background(), m)
	require.NoError(t, err)
	require.Equal(t, ingest.Stored, d.Outcome, "the filter reads a header that is never stored")
	row := ev.mem.Rows()[0]
	require.Equal(t, map[string]string{"x-tenant": "acme"}, row.Headers)
	require.Equal(t, "corr-"+strings.Repeat("x", 123), row.CorrelationID)
	require.Equal(t, row.CorrelationID, d.CorrelationID)
	require.Equal(t, "a", row.IdempotencyKey)
	require.Equal(t, "t", *row.EventType)
	require.Equal(t, "c", *row.AggregateID)
	require.Empty(t, row.State, "a stored row is pending")
	require.Nil(t, row.LastError)
	require.Equal(t, "push", row.Consumption)
}

func TestOutcomeNames(t *testing.T) {
	t.Parallel()
	for o, want := range map[ingest.Outcome]string{ingest.Stored: "stored", ingest.Duplicate: "duplicate",
		ingest.Filtered: "filtered", ingest.Rejected: "rejected", ingest.Dead: "dead", 0: "unknown"} {
		require.Equal(t, want, o.String())
	}
}

func TestNewReceiverDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		src := withTransform("s", "fail", "")
		src.Consumption = ""
		ev := newReceiver(t, src, ingest.Transport{}, &memStore{})
		d, err := ev.r.Receive(context.Background(), msg(`{"id":"1"}`))
		require.NoError(t, err)
		require.Equal(t, ingest.Rejected, d.Outcome, "onError defaults to Fail")
		ev = newReceiver(t, source("plain"), ingest.Transport{}, &memStore{})
		_, err = ev.r.Receive(context.Background(), msg(`{"id":"1"}`))
		require.NoError(t, err)
		require.Equal(t, ingest.ConsumptionPush, ev.mem.Rows()[0].Consumption)
	})
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	opts := ingest.Options{Store: &memStore{}, Metrics: m, Transforms: ingest.Expressions((&ingesttest.Compiler{}).Compile)}
	pull := source("p")
	pull.Consumption = ingest.ConsumptionPull
	_, err = ingest.NewReceiver(pull, ingest.Transport{}, opts)
	require.NoError(t, err)
	for _, tc := range []struct {
		edit func(*ingest.Source)
		want string
	}{
		{func(s *ingest.Source) { s.Name = "" }, "ingest: Source.Name is required"},
		{func(s *ingest.Source) { s.Consumption = "poll" }, `sources.s.consumption: "poll" is neither push nor pull`},
		{func(s *ingest.Source) { s.Transform.OnError = "Retry" }, `sources.s.transform.onError: "Retry" is not Fail, Skip or Dead`},
		{func(s *ingest.Source) { s.IdempotencyKeyPath = "" }, "sources.s.idempotencyKeyPath: "},
	} {
		src := withTransform("s", "wrap", ingest.OnErrorFail)
		tc.edit(&src)
		_, err := ingest.NewReceiver(src, ingest.Transport{}, opts)
		require.ErrorContains(t, err, tc.want)
	}
	_, err = ingest.NewReceiver(source("s"), ingest.Transport{}, ingest.Options{Metrics: m})
	require.EqualError(t, err, "ingest: Options.Store and Options.Metrics are required")
}
