package ingest_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// brokerSource is the receive options of a RabbitMQ source as the
// loader fills it.
func brokerSource(name string) ingest.Source {
	return ingest.Source{
		Name: name, Consumption: ingest.ConsumptionPush,
		IdempotencyKeyPath: "$.id", EventTypePath: "$.type", AggregateIDPath: "$.customer",
		AttributeHeaders: ingest.AttributeHeaders{
			IdempotencyKey: "x-idempotency-key", AggregateID: "x-aggregate-id", EventType: "x-event-type",
		},
	}
}

func digest(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestReceiveDeadLetterRows(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 256)
	tests := []struct {
		name      string
		msg       ingest.Message
		refuse    func(queuebox.ReceivedRow) error
		key       string
		payload   string
		lastError string
	}{
		{name: "not JSON", msg: msg(`not json`), key: digest(`not json`),
			payload: `{"raw":"not json"}`, lastError: "parse: body is not JSON"},
		{name: "not JSON, key from the header", msg: msg(`<x/>`, "x-idempotency-key", "k-1"), key: "k-1",
			payload: `{"raw":"<x/>"}`, lastError: "parse: body is not JSON"},
		{name: "not UTF-8", msg: msg("\xff\xfe"), key: digest("\xff\xfe"),
			payload: `{"raw":"base64:` + base64.StdEncoding.EncodeToString([]byte("\xff\xfe")) + `"}`, lastError: "parse: body is not JSON"},
		{name: "NUL in JSON", msg: msg(`{"id":"n","v":"\u0000"}`), key: digest(`{"id":"n","v":"\u0000"}`),
			payload: `{"raw":"{\"id\":\"n\",\"v\":\"\\u0000\"}"}`, lastError: `parse: body holds \u0000`},
		{name: "aggregate too long", msg: msg(`{"id":"a","customer":"` + long + `"}`), key: "a",
			payload: `{"id":"a","customer":"` + long + `"}`, lastError: "extract: Aggregate id is longer than 255 characters"},
		{name: "key too long", msg: msg(`{"id":"b"}`, "x-idempotency-key", long), key: digest(`{"id":"b"}`),
			payload: `{"id":"b"}`, lastError: "extract: Idempotency key is longer than 255 characters"},
		{name: "refused value kept as text", msg: msg(`{"id":"r","n":1e999}`), key: "r",
			refuse: func(row queuebox.ReceivedRow) error {
				if row.State == queuebox.StateDead {
					return nil
				}
				return refusedValue("numeric field overflow")
			},
			payload: `{"raw":"{\"id\":\"r\",\"n\":1e999}"}`, lastError: "store: numeric field overflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, brokerSource("q"), broker, &memStore{Refuse: tt.refuse})
			d, err := ev.r.Receive(context.Background(), tt.msg)
			require.NoError(t, err)
			require.Equal(t, ingest.Dead, d.Outcome)
			require.Equal(t, "extraction_failed", d.Reason)
			require.Equal(t, tt.lastError, d.Message)
			require.True(t, d.Permanent)
			rows := ev.mem.Rows()
			require.Len(t, rows, 1)
			row := rows[0]
			require.Equal(t, d.ID, row.ID)
			require.Equal(t, queuebox.StateDead, row.State)
			require.Equal(t, tt.lastError, *row.LastError)
			require.Equal(t, tt.key, row.IdempotencyKey)
			require.JSONEq(t, tt.payload, string(row.Payload))
			require.Equal(t, d.CorrelationID, row.CorrelationID)
			require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "extraction_failed"))

			again, err := ev.r.Receive(context.Background(), tt.msg)
			require.NoError(t, err)
			require.Equal(t, ingest.Duplicate, again.Outcome, "a redelivery finds the dead row")
			require.Len(t, ev.mem.Rows(), 1)
		})
	}
}

// When even the dead row is refused (a value outside the payload), no row
// can keep the message: a permanent rejection.
func TestReceiveDeadRowRefused(t *testing.T) {
	t.Parallel()
	store := &memStore{Refuse: func(queuebox.ReceivedRow) error { return refusedValue("invalid byte sequence") }}
	ev := newReceiver(t, brokerSource("q"), broker, store)
	d, err := ev.r.Receive(context.Background(), msg(`{"id":"a"}`, "x-tenant", "\x00"))
	require.NoError(t, err)
	require.Equal(t, ingest.Rejected, d.Outcome)
	require.True(t, d.Permanent)
	require.Equal(t, "The database cannot store this message: invalid byte sequence", d.Message)
	require.Empty(t, store.Rows())
}

// The broker order of 26_Headers: each attribute from the first place
// that gives a value.
func TestReceiveBrokerAttributeOrder(t *testing.T) {
	t.Parallel()
	const body = `{"id":"path-key","type":"path-type","customer":"path-agg"}`
	ids := ingest.BrokerAttributes{MessageID: "broker-id", RecordKey: "record-key"}
	tests := []struct {
		name           string
		body           string
		headers        []string
		ids            ingest.BrokerAttributes
		key, agg, kind string // "" is NULL for agg and kind
	}{
		{name: "body", body: body, ids: ids, key: "path-key", agg: "path-agg", kind: "path-type"},
		{name: "the key header first, the paths before the other headers", body: body, ids: ids,
			headers: []string{"x-idempotency-key", "hdr-key", "x-aggregate-id", "hdr-agg", "x-event-type", "hdr-type"},
			key:     "hdr-key", agg: "path-agg", kind: "path-type"},
		{name: "headers after the paths", body: `{"id":{"no":"scalar"}}`, ids: ids,
			headers: []string{"x-aggregate-id", "hdr-agg", "x-event-type", "hdr-type"},
			key:     "broker-id", agg: "hdr-agg", kind: "hdr-type"},
		{name: "broker ids last", body: `{}`, ids: ids, key: "broker-id", agg: "record-key"},
		{name: "digest of the body", body: `{"id":""}`, key: digest(`{"id":""}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, brokerSource("q"), broker, &memStore{})
			m := msg(tt.body, tt.headers...)
			m.Broker = tt.ids
			d, err := ev.r.Receive(context.Background(), m)
			require.NoError(t, err)
			require.Equal(t, ingest.Stored, d.Outcome)
			row := ev.mem.Rows()[0]
			require.Equal(t, tt.key, row.IdempotencyKey)
			require.Equal(t, tt.agg, deref(row.AggregateID))
			require.Equal(t, tt.kind, deref(row.EventType))
		})
	}
}

func TestReceiveRenamedAttributeHeaders(t *testing.T) {
	t.Parallel()
	src := brokerSource("q")
	src.IdempotencyKeyPath, src.EventTypePath, src.AggregateIDPath = "$.nothing", "", ""
	src.AttributeHeaders = ingest.AttributeHeaders{IdempotencyKey: "id", AggregateID: "aggregateId", EventType: "eventType"}
	ev := newReceiver(t, src, broker, &memStore{})
	_, err := ev.r.Receive(context.Background(), msg(`{}`, "id", "k", "aggregateid", "a", "eventtype", "e", "x-idempotency-key", "old"))
	require.NoError(t, err)
	row := ev.mem.Rows()[0]
	require.Equal(t, []string{"k", "a", "e"}, []string{row.IdempotencyKey, *row.AggregateID, *row.EventType},
		"the names match in any letter case")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
