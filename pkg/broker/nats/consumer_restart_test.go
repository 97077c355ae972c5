package nats_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
)

// TestConsumerSurvivesAServerRestart: the health check goes down while
// the server is away, the consumer comes back by itself, and every
// message published before and after the restart is stored once.
func TestConsumerSurvivesAServerRestart(t *testing.T) {
	t.Parallel()
	srv := natstest.StartServer(t)
	_, js := natstest.Connect(t, srv.URL)
	stream, prefix := natstest.Stream(t, js)
	src := natsSource("restart", stream.CachedInfo().Config.Name)
	src.Servers = srv.URL
	store := &ingesttest.Inbox{}
	c := consumerFor(t, src, store)
	runConsumer(t, c)
	up := func() bool { return c.Check(context.Background()) == nil }
	require.Eventually(t, up, 30*time.Second, 10*time.Millisecond)

	for i := range 20 {
		natstest.Publish(t, js, prefix+".in", fmt.Appendf(nil, `{"id":"before-%d"}`, i), nil)
	}
	srv.Stop(t)
	require.Eventually(t, func() bool { return !up() }, 30*time.Second, 10*time.Millisecond, "down while the server is away")
	srv.Start(t)
	require.Eventually(t, up, 60*time.Second, 10*time.Millisecond, "up again after the restart")
	for i := range 20 {
		natstest.Publish(t, js, prefix+".in", fmt.Appendf(nil, `{"id":"after-%d"}`, i), nil)
	}
	require.Eventually(t, func() bool { return len(store.Rows()) == 40 }, 90*time.Second, 10*time.Millisecond)
	seen := map[string]bool{}
	for _, r := range store.Rows() {
		require.False(t, seen[r.IdempotencyKey], "stored once: %s", r.IdempotencyKey)
		seen[r.IdempotencyKey] = true
	}
}
