package nats_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A subject that the row chooses is never one of the JetStream API: a
// row whose topic is $JS.API.STREAM.PURGE.<stream> leaves the stream as it
// was, and the publish is undeliverable (the row goes dead at once, with
// no retry that purges again). The other refused subjects fail the same
// way; a plain subject is published.
func TestPublishRefusesAReservedRenderedSubject(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	natstest.Publish(t, js, prefix+".kept", []byte(`{"n":1}`), nil)
	info, err := s.Info(t.Context())
	require.NoError(t, err)
	p := publisher(t, natsb.Options{Name: "events", Subject: "{{ topic }}"})

	for _, subject := range []string{"$JS.API.STREAM.PURGE." + info.Config.Name, "$SYS.REQ.SERVER.PING",
		"_INBOX.x", prefix + ".*", prefix + ".>", prefix + "..x", prefix + ".a b"} {
		m := row("0190a0a0-0000-7000-8000-0000000000a1")
		m.Topic = subject
		err := p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)})
		require.ErrorIs(t, err, queuebox.ErrUndeliverable, subject)
		require.ErrorContains(t, err, "nats destination events")
		require.ErrorContains(t, err, subject)
	}
	got := natstest.Messages(t, s)
	require.Len(t, got, 1, "the stream still holds its message")
	require.Equal(t, prefix+".kept", got[0].Subject)

	m := row("0190a0a0-0000-7000-8000-0000000000a2")
	m.Topic = prefix + ".plain"
	require.NoError(t, p.Publish(t.Context(), queuebox.Delivery{Message: m, Body: []byte(`{}`)}))
	require.Len(t, natstest.Messages(t, s), 2)
}
