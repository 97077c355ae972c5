package nats_test

import (
	"context"
	"testing"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
)

func row(id string) *queuebox.OutboxMessage {
	return &queuebox.OutboxMessage{ID: id, Topic: "order.created", Key: "cust-7", HasKey: true,
		AggregateType: "order", Payload: []byte(`{"region":"eu","n":1}`), Attempt: 2, MaxAttempts: 5}
}

func publisher(t *testing.T, opts natsb.Options) *natsb.Publisher {
	t.Helper()
	if opts.Servers == "" {
		opts.Servers = natstest.URL()
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	p, err := natsb.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestPublishHeadersAndSubject(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	p := publisher(t, natsb.Options{Name: "orders", Subject: prefix + ".{{ aggregateType }}.{{ payload.region }}",
		Headers: map[string]string{"X-Env": "prod", "x-static": "s", "X-Topic": "static-topic"}})
	m := row("0190a0a0-0000-7000-8000-000000000001")
	m.Headers = map[string]string{"x-env": "row", "x-trace": "t-1", "x-message-id": "row-dup"}
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{"delivered":true}`)}))

	got := natstest.Messages(t, s)
	require.Len(t, got, 1, "sent only after the stream acknowledged it")
	msg := got[0]
	require.Equal(t, prefix+".order.eu", msg.Subject)
	require.JSONEq(t, `{"delivered":true}`, string(msg.Data))
	require.Equal(t, []string{m.ID, "row-dup"}, msg.Header.Values("x-message-id"), "a row header adds to a standard one")
	require.Equal(t, []string{"order.created", "static-topic"}, msg.Header.Values("x-topic"))
	require.Equal(t, []string{"2"}, msg.Header.Values("x-attempt"))
	require.Equal(t, []string{"cust-7"}, msg.Header.Values("x-message-key"))
	require.Equal(t, []string{"row"}, msg.Header.Values("x-env"), "a row header replaces a static one in any letter case")
	require.Empty(t, msg.Header.Values("X-Env"))
	require.Equal(t, []string{"s"}, msg.Header.Values("x-static"))
	require.Equal(t, []string{"t-1"}, msg.Header.Values("x-trace"))
	require.Empty(t, msg.Header.Values(gonats.MsgIdHdr), "no Nats-Msg-Id unless the row sets one")
}

func TestPublishRelayedRowCannotChooseHeaders(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	p := publisher(t, natsb.Options{Name: "orders", Subject: prefix + ".relayed", Headers: map[string]string{"X-Env": "prod"}})
	m := row("0190a0a0-0000-7000-8000-000000000009")
	m.Headers = map[string]string{"x-inbox-id": "i-1", "x-source": "stripe", "x-env": "evil",
		"x-message-id": "forged", "X-Topic": "forged", "x-forwarded-for": "10.0.0.1", "stripe-id": "s-1"}
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)}))

	got := natstest.Messages(t, s)
	require.Len(t, got, 1)
	h := got[0].Header
	require.Equal(t, []string{m.ID}, h.Values("x-message-id"))
	require.Equal(t, []string{"order.created"}, h.Values("x-topic"))
	require.Equal(t, []string{"prod"}, h.Values("X-Env"))
	require.Empty(t, h.Values("x-env"))
	require.Empty(t, h.Values("x-forwarded-for"))
	require.Equal(t, []string{"i-1"}, h.Values("x-inbox-id"))
	require.Equal(t, []string{"s-1"}, h.Values("stripe-id"))
}

func TestPublishWithoutKeyAndSubjectFrom(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	p := publisher(t, natsb.Options{Name: "orders", Subject: "ignored", SubjectFrom: "topic"})
	m := row("id-2")
	m.Key, m.HasKey, m.Topic = "", false, prefix+".from.topic"
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: m.Payload}))
	got := natstest.Messages(t, s)
	require.Len(t, got, 1)
	require.Equal(t, prefix+".from.topic", got[0].Subject)
	require.Empty(t, got[0].Header.Values("x-message-key"), "absent when the row has no key")
}

func TestPublishFailures(t *testing.T) {
	t.Parallel()
	t.Run("no stream holds the subject", func(t *testing.T) {
		t.Parallel()
		p := publisher(t, natsb.Options{Name: "orders", Subject: "qbtest.nostream." + natstest.Suffix()})
		err := p.Publish(t.Context(), queuebox.Delivery{Message: row("id-3"), Body: []byte(`{}`)})
		require.ErrorContains(t, err, "no stream holds the subject")
		var e *natsb.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, "orders", e.Destination)
	})
	t.Run("empty subject", func(t *testing.T) {
		t.Parallel()
		p := publisher(t, natsb.Options{Name: "orders", Subject: "x", SubjectFrom: "key"})
		m := row("id-4")
		m.Key, m.HasKey = "", false
		require.ErrorContains(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)}), "renders empty")
	})
	t.Run("row header the protocol cannot carry", func(t *testing.T) {
		t.Parallel()
		p := publisher(t, natsb.Options{Name: "orders", Subject: "qbtest.x"})
		m := row("id-5")
		m.Headers = map[string]string{"bad name": "v"}
		require.ErrorContains(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)}), "invalid header name")
	})
	t.Run("bad options", func(t *testing.T) {
		t.Parallel()
		for name, opts := range map[string]natsb.Options{
			"no servers":        {Subject: "a"},
			"unknown column":    {Conn: natsb.Conn{Servers: natstest.URL()}, Subject: "a", SubjectFrom: "payload"},
			"unknown field":     {Conn: natsb.Conn{Servers: natstest.URL()}, Subject: "{{ region }}"},
			"user, no password": {Conn: natsb.Conn{Servers: natstest.URL(), Username: "u"}, Subject: "a"},
			"user and token":    {Conn: natsb.Conn{Servers: natstest.URL(), Username: "u", Password: secret.New("p"), Token: secret.New("t")}, Subject: "a"},
			"static header":     {Conn: natsb.Conn{Servers: natstest.URL()}, Subject: "a", Headers: map[string]string{"a:b": "v"}},
		} {
			_, err := natsb.New(opts)
			require.Error(t, err, name)
		}
	})
}

// TestPublishCoreNATS: jetStream false publishes without a stream; success
// means the server read the message.
func TestPublishCoreNATS(t *testing.T) {
	t.Parallel()
	nc, _ := natstest.Connect(t, natstest.URL())
	subject := "qbtest.core." + natstest.Suffix()
	sub, err := nc.SubscribeSync(subject)
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	p := publisher(t, natsb.Options{Name: "core", Subject: subject, Core: true})
	m := row("id-6")
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{"core":1}`)}))
	got, err := sub.NextMsg(10 * time.Second)
	require.NoError(t, err)
	require.Equal(t, `{"core":1}`, string(got.Data))
	require.Equal(t, m.ID, got.Header.Get("x-message-id"))
}

// TestPublishDuringOutage: while the server is down a publish fails
// within the timeout instead of hanging, and the publisher delivers again
// once the server is back. The credentials never show in an error.
func TestPublishDuringOutage(t *testing.T) {
	t.Parallel()
	srv := natstest.StartServer(t)
	_, js := natstest.Connect(t, srv.URL)
	s, prefix := natstest.Stream(t, js)
	p := publisher(t, natsb.Options{Name: "outage", Subject: prefix + ".e", Timeout: 2 * time.Second,
		Conn: natsb.Conn{Servers: srv.URL}})
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: row("before"), Body: []byte(`{}`)}))

	srv.Kill(t)
	done := make(chan error, 1)
	go func() { done <- p.Publish(t.Context(), queuebox.Delivery{Message: row("during"), Body: []byte(`{}`)}) }()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("a publish during the outage hangs")
	}

	srv.Start(t)
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		return p.Publish(ctx, queuebox.Delivery{Message: row("after"), Body: []byte(`{}`)}) == nil
	}, 60*time.Second, 50*time.Millisecond, "the publisher delivers after the server is back")
	var ids []string
	for _, m := range natstest.Messages(t, s) {
		ids = append(ids, m.Header.Get("x-message-id"))
	}
	require.Contains(t, ids, "before")
	require.Contains(t, ids, "after")
}

func TestErrorsHoldNoCredential(t *testing.T) {
	t.Parallel()
	p := publisher(t, natsb.Options{Name: "secret", Subject: "qbtest.nostream." + natstest.Suffix(),
		Conn: natsb.Conn{Servers: "nats://qbuser:hunter2-pass@127.0.0.1:1"}})
	err := p.Publish(t.Context(), queuebox.Delivery{Message: row("id-7"), Body: []byte(`{}`)})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "hunter2-pass")
}
