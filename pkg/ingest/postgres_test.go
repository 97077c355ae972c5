package ingest_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// In dead-letter mode every body that HTTP refuses becomes a dead row the
// real jsonb column accepts, and a redelivery finds it.
func TestDeadRowsAgainstPostgres(t *testing.T) {
	t.Parallel()
	in, s := pgtest.Inbox(t)
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	r, err := ingest.NewReceiver(brokerSource("q"), broker, ingest.Options{Store: in, Metrics: m})
	require.NoError(t, err)
	bodies := map[string]string{
		`not json`:                     "parse: body is not JSON",
		"\xff\xfe\x00":                 "parse: body is not JSON",
		`{"id":"n","v":"\u0000"}`:      `parse: body holds \u0000`,
		`{"id":"a","n":1e999999}`:      "store: ",
		`{"id":"b","note":"x\ud800y"}`: "store: ",
	}
	for body, lastError := range bodies {
		d, err := r.Receive(context.Background(), ingest.Message{Body: []byte(body)})
		require.NoError(t, err, body)
		require.Equal(t, ingest.Dead, d.Outcome, body)
		again, err := r.Receive(context.Background(), ingest.Message{Body: []byte(body)})
		require.NoError(t, err, body)
		require.Equal(t, ingest.Duplicate, again.Outcome, body)
		var state, raw, stored string
		require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT state, payload->>'raw', last_error
			FROM inbox WHERE id = $1`, d.ID).Scan(&state, &raw, &stored))
		require.Equal(t, "dead", state, body)
		require.True(t, strings.HasPrefix(stored, lastError), stored)
		if b64, ok := strings.CutPrefix(raw, "base64:"); ok {
			raw = decodeBase64(t, b64)
		}
		require.Equal(t, body, raw, "the payload keeps the body")
	}
	var rows int
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&rows))
	require.Equal(t, len(bodies), rows)
}

func decodeBase64(t *testing.T, text string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(text)
	require.NoError(t, err)
	return string(b)
}

// A header with a NUL or invalid UTF-8, and headers past the cap, reach
// the real columns: the message is stored, pending or dead, never refused.
func TestBrokerHeadersAgainstPostgres(t *testing.T) {
	t.Parallel()
	in, s := pgtest.Inbox(t)
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	r, err := ingest.NewReceiver(brokerSource("q"), broker, ingest.Options{Store: in, Metrics: m})
	require.NoError(t, err)
	tests := map[string]struct {
		m     ingest.Message
		state string
	}{
		"nul":  {msg(`{"id":"nul"}`, "x-tenant", "a\x00b", "x-\xffname", "eu\xff"), "pending"},
		"key":  {msg(`{"id":"key"}`, "x-idempotency-key", "k\x00"), "dead"},
		"many": {msg(`{"id":"many"}`, manyHeaders(200, 1)...), "dead"},
	}
	for name, tt := range tests {
		d, err := r.Receive(context.Background(), tt.m)
		require.NoError(t, err, name)
		require.Contains(t, []ingest.Outcome{ingest.Stored, ingest.Dead}, d.Outcome, name)
		var state string
		require.NoError(t, s.Connect(t).QueryRow(context.Background(),
			`SELECT state FROM inbox WHERE id = $1`, d.ID).Scan(&state))
		require.Equal(t, tt.state, state, name)
	}
}
