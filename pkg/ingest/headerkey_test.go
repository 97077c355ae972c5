package ingest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
)

// A source whose key comes from headers (an HTTP auth preset) takes the
// first named header that holds a value, and the event type from its
// header unless a path is set; the broker order ignores both.
func TestReceiveKeyFromHeaders(t *testing.T) {
	t.Parallel()
	src := ingest.Source{Name: "shop", IdempotencyKeyHeaders: []string{"X-Shopify-Webhook-Id", "x-shopify-event-id"},
		EventTypeHeader: "X-Shopify-Topic"}
	cases := []struct {
		name    string
		m       ingest.Message
		key     string
		typ     string
		message string
	}{
		{name: "first header", m: msg(`{}`, "x-shopify-webhook-id", "w-1", "x-shopify-event-id", "e-1", "x-shopify-topic", "orders/create"),
			key: "w-1", typ: "orders/create"},
		{name: "fallback header", m: msg(`{}`, "x-shopify-event-id", "e-2"), key: "e-2"},
		{name: "none", m: msg(`{}`), message: "Idempotency key not found in the x-shopify-webhook-id or x-shopify-event-id header"},
		{name: "too long", m: msg(`{}`, "x-shopify-webhook-id", strings.Repeat("k", 256)),
			message: "Idempotency key in the x-shopify-webhook-id or x-shopify-event-id header is longer than 255 characters"},
		{name: "control character", m: msg(`{}`, "x-shopify-webhook-id", "a\x01b"),
			message: "Idempotency key in the x-shopify-webhook-id or x-shopify-event-id header holds a control character or invalid UTF-8"},
		{name: "event type with a control character", m: msg(`{}`, "x-shopify-webhook-id", "w-3", "x-shopify-topic", "a\nb"),
			message: "Event type in the x-shopify-topic header holds a control character"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev := newReceiver(t, src, ingest.Transport{}, &memStore{})
			d, err := ev.r.Receive(context.Background(), tc.m)
			require.NoError(t, err)
			if tc.message != "" {
				require.Equal(t, ingest.Rejected, d.Outcome)
				require.Equal(t, tc.message, d.Message)
				return
			}
			require.Equal(t, ingest.Stored, d.Outcome, d.Message)
			row := ev.mem.Row(t, tc.key)
			if tc.typ == "" {
				require.Nil(t, row.EventType)
				return
			}
			require.Equal(t, tc.typ, *row.EventType)
		})
	}
	t.Run("a path wins over the headers", func(t *testing.T) {
		t.Parallel()
		withPath := src
		withPath.IdempotencyKeyPath, withPath.EventTypePath = "$.id", "$.type"
		ev := newReceiver(t, withPath, ingest.Transport{}, &memStore{})
		d, err := ev.r.Receive(context.Background(), msg(`{"id":"body-1","type":"t"}`, "x-shopify-webhook-id", "w-9", "x-shopify-topic", "h"))
		require.NoError(t, err)
		require.Equal(t, ingest.Stored, d.Outcome, d.Message)
		require.Equal(t, "t", *ev.mem.Row(t, "body-1").EventType)
	})
}

// With KeyFromBodyDigest (the github and shopify presets) a captured
// delivery sent again under a new delivery id and another event type is a
// duplicate: the key is the digest of the signed body, and the first
// row's event type stands.
func TestReceiveKeyFromBodyDigest(t *testing.T) {
	t.Parallel()
	src := ingest.Source{Name: "gh", IdempotencyKeyHeaders: []string{"X-GitHub-Delivery"}, EventTypeHeader: "X-GitHub-Event",
		KeyFromBodyDigest: true}
	ev := newReceiver(t, src, ingest.Transport{}, &memStore{})
	body := `{"action":"opened","number":1}`
	d, err := ev.r.Receive(context.Background(), msg(body, "x-github-delivery", "d-1", "x-github-event", "pull_request"))
	require.NoError(t, err)
	require.Equal(t, ingest.Stored, d.Outcome, d.Message)
	sum := sha256.Sum256([]byte(body))
	row := ev.mem.Row(t, "sha256:"+hex.EncodeToString(sum[:]))
	require.Equal(t, "pull_request", *row.EventType)

	d, err = ev.r.Receive(context.Background(), msg(body, "x-github-delivery", "d-forged", "x-github-event", "push"))
	require.NoError(t, err)
	require.Equal(t, ingest.Duplicate, d.Outcome, "a re-labelled copy is a duplicate")

	d, err = ev.r.Receive(context.Background(), msg(body))
	require.NoError(t, err)
	require.Equal(t, ingest.Rejected, d.Outcome, "the delivery header is still required")
}
