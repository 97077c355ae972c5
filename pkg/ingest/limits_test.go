package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// rawOf returns the text of a {"raw": text} payload.
func rawOf(t *testing.T, payload []byte) string {
	t.Helper()
	var p struct{ Raw string }
	require.NoError(t, json.Unmarshal(payload, &p))
	return p.Raw
}

// A broker message past MaxBodyBytes is never parsed: its dead row keeps
// a cut of the body and a reason that names the limit, and a repeat is a
// duplicate.
func TestReceiveBodyPastTheBoundGoesDead(t *testing.T) {
	t.Parallel()
	// The cut falls inside a two-byte character, which it leaves out.
	body := `{"id":"big","pad":"` + strings.Repeat("é", 5000) + `"}`
	tr := broker
	tr.MaxBodyBytes = 1000
	ev := newReceiver(t, brokerSource("q"), tr, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg(body))
	require.NoError(t, err)
	require.Equal(t, ingest.Dead, d.Outcome)
	want := fmt.Sprintf("size: body of %d bytes exceeds inbox.maxBodyBytes (1000 bytes); the payload keeps its first %d bytes",
		len(body), ingest.DeadBodyPrefix)
	require.Equal(t, want, d.Message)
	row := ev.mem.Rows()[0]
	require.Equal(t, queuebox.StateDead, row.State)
	require.Equal(t, want, *row.LastError)
	require.Equal(t, digest(body), row.IdempotencyKey, "the body is not parsed: the key is its digest")
	raw := rawOf(t, row.Payload)
	require.True(t, strings.HasPrefix(body, raw), "the payload is a prefix of the body")
	require.Equal(t, ingest.DeadBodyPrefix-1, len(raw), "cut before the character the prefix splits")
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "extraction_failed"))

	again, err := ev.r.Receive(context.Background(), msg(body))
	require.NoError(t, err)
	require.Equal(t, ingest.Duplicate, again.Outcome)

	fits, err := ev.r.Receive(context.Background(), msg(`{"id":"small"}`+strings.Repeat(" ", 1000-14)))
	require.NoError(t, err)
	require.Equal(t, ingest.Stored, fits.Outcome, "a body of exactly MaxBodyBytes is stored")
}

func TestReceiveBodyPastTheBoundKeepsTheHeaderKey(t *testing.T) {
	t.Parallel()
	tr := broker
	tr.MaxBodyBytes = 10
	ev := newReceiver(t, brokerSource("q"), tr, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg("\xff"+strings.Repeat("x", 20), "x-idempotency-key", "k-1"))
	require.NoError(t, err)
	require.Equal(t, ingest.Dead, d.Outcome)
	row := ev.mem.Rows()[0]
	require.Equal(t, "k-1", row.IdempotencyKey)
	require.True(t, strings.HasPrefix(rawOf(t, row.Payload), "base64:"), "a cut that is not UTF-8 is kept as Base64")
}

// Without dead-letter mode a body past the bound is rejected, no row.
func TestReceiveBodyPastTheBoundRejectedOnHTTP(t *testing.T) {
	t.Parallel()
	ev := newReceiver(t, source("s"), ingest.Transport{MaxBodyBytes: 5}, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg(`{"id":"a"}`))
	require.NoError(t, err)
	require.Equal(t, ingest.Rejected, d.Outcome)
	require.Equal(t, "Request body exceeds 5 bytes", d.Message)
	require.Empty(t, ev.mem.Rows())
}

func manyHeaders(n, valueLen int) []string {
	var kv []string
	for i := range n {
		kv = append(kv, fmt.Sprintf("x-h-%04d", i), strings.Repeat("v", valueLen))
	}
	return kv
}

// Headers past the cap of an inbox row send a broker message dead, with
// the headers that fit; at the cap it is stored.
func TestReceiveHeadersPastTheCapGoDead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, lastError string
		headers         []string
	}{
		{name: "count", headers: manyHeaders(1500, 1),
			lastError: "headers: Request headers exceed 64 headers; the row keeps those that fit"},
		{name: "bytes", headers: manyHeaders(10, 2000),
			lastError: "headers: Request headers exceed 16384 bytes; the row keeps those that fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, brokerSource("q"), broker, &memStore{})
			d, err := ev.r.Receive(context.Background(), msg(`{"id":"h"}`, tt.headers...))
			require.NoError(t, err)
			require.Equal(t, ingest.Dead, d.Outcome)
			require.Equal(t, tt.lastError, d.Message)
			row := ev.mem.Rows()[0]
			require.Equal(t, "h", row.IdempotencyKey, "the body is still read")
			require.JSONEq(t, `{"id":"h"}`, string(row.Payload))
			require.Empty(t, ingest.HeadersTooLarge(row.Headers), "the dead row keeps headers within the cap")
			require.NotEmpty(t, row.Headers)
			require.Contains(t, row.Headers, "x-h-0000", "the first names in order are kept")
		})
	}
	ev := newReceiver(t, brokerSource("q"), broker, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg(`{"id":"ok"}`, manyHeaders(ingest.MaxStoredHeaders, 1)...))
	require.NoError(t, err)
	require.Equal(t, ingest.Stored, d.Outcome)
	require.Len(t, ev.mem.Rows()[0].Headers, ingest.MaxStoredHeaders)
}

// A body that is not JSON and headers past the cap: the dead row keeps
// the body as text.
func TestReceiveHeadersPastTheCapWithABodyNotJSON(t *testing.T) {
	t.Parallel()
	ev := newReceiver(t, brokerSource("q"), broker, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg(`<x/>`, manyHeaders(65, 1)...))
	require.NoError(t, err)
	require.Equal(t, ingest.Dead, d.Outcome)
	require.JSONEq(t, `{"raw":"<x/>"}`, string(ev.mem.Rows()[0].Payload))
}

// A NUL or invalid UTF-8 in a broker header is no reason to lose the
// message: the stored headers are cleaned, and an attribute read from such
// a header sends the message dead under the digest of its body.
func TestReceiveCleansBrokerHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		headers   []string
		outcome   ingest.Outcome
		stored    map[string]string
		key       string
		lastError string
	}{
		{name: "NUL in a value", headers: []string{"x-tenant", "a\x00b"}, outcome: ingest.Stored,
			stored: map[string]string{"x-tenant": "ab"}, key: "k"},
		{name: "invalid UTF-8 in a value", headers: []string{"x-tenant", "a\xffb"}, outcome: ingest.Stored,
			stored: map[string]string{"x-tenant": "a\uFFFDb"}, key: "k"},
		{name: "NUL and invalid UTF-8 in a name", headers: []string{"x-\x00t\xfe", "v"}, outcome: ingest.Stored,
			stored: map[string]string{"x-t\uFFFD": "v"}, key: "k"},
		{name: "key header with NUL", headers: []string{"x-idempotency-key", "k\x00"}, outcome: ingest.Dead,
			stored: map[string]string{"x-idempotency-key": "k"}, key: digest(`{"id":"k"}`),
			lastError: "extract: Idempotency key holds a NUL or invalid UTF-8"},
		{name: "event type header not UTF-8", headers: []string{"x-event-type", "\xc3"}, outcome: ingest.Dead,
			stored: map[string]string{"x-event-type": "\uFFFD"}, key: "k",
			lastError: "extract: Event type holds invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, brokerSource("q"), broker, &memStore{Refuse: ingesttest.RefuseAsPostgres})
			m := msg(`{"id":"k"}`, tt.headers...)
			d, err := ev.r.Receive(context.Background(), m)
			require.NoError(t, err)
			require.Equal(t, tt.outcome, d.Outcome, d.Message)
			rows := ev.mem.Rows()
			require.Len(t, rows, 1)
			require.Equal(t, tt.stored, rows[0].Headers)
			require.Equal(t, tt.key, rows[0].IdempotencyKey)
			if tt.lastError != "" {
				require.Equal(t, tt.lastError, *rows[0].LastError)
			}
			require.Equal(t, tt.headers[1], m.Headers[tt.headers[0]], "Receive leaves the message's map alone")
		})
	}
}

// A broker id the key column refuses sends the message dead as well.
func TestReceiveBrokerIDNotUTF8GoesDead(t *testing.T) {
	t.Parallel()
	ev := newReceiver(t, brokerSource("q"), broker, &memStore{Refuse: ingesttest.RefuseAsPostgres})
	m := msg(`{}`)
	m.Broker = ingest.BrokerAttributes{MessageID: "id\xff", RecordKey: "rk\x00"}
	d, err := ev.r.Receive(context.Background(), m)
	require.NoError(t, err)
	require.Equal(t, ingest.Dead, d.Outcome)
	require.Equal(t, digest(`{}`), ev.mem.Rows()[0].IdempotencyKey)
}
