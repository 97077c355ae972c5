package nats_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// TestSourceContract runs the suite every broker source passes, against
// the NATS server of NATS_URL, each case on a stream of its own.
func TestSourceContract(t *testing.T) {
	t.Parallel()
	brokertest.ExerciseSource(t, brokertest.SourceFactory{
		New: func(t *testing.T) brokertest.SourceBroker { return newSourceStream(t) },
	})
}

// sourceStream is a stream and a durable name as a
// brokertest.SourceBroker. Terminated counts the advisories that
// JetStream publishes for each message a consumer terminates.
type sourceStream struct {
	js         jetstream.JetStream
	stream     jetstream.Stream
	prefix     string
	durable    string
	terminated atomic.Int64
}

func newSourceStream(t *testing.T) *sourceStream {
	nc, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	b := &sourceStream{js: js, stream: s, prefix: prefix, durable: "qb-" + natstest.Suffix()}
	subject := "$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED." + s.CachedInfo().Config.Name + "." + b.durable
	sub, err := nc.Subscribe(subject, func(*gonats.Msg) { b.terminated.Add(1) })
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return b
}

func (b *sourceStream) Publish(t *testing.T, body []byte, headers map[string]string) {
	natstest.Publish(t, b.js, b.prefix+".in", body, headers)
}

func (b *sourceStream) Consumer(t *testing.T, cfg brokertest.SourceConfig) brokertest.SourceConsumer {
	c, err := natsb.NewConsumer(natsb.ConsumerOptions{Conn: natsb.Conn{Servers: natstest.URL()},
		Stream: b.stream.CachedInfo().Config.Name, Durable: b.durable, Receiver: cfg.Receiver, Logger: quietLog(),
		MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff, DrainTimeout: cfg.DrainTimeout})
	require.NoError(t, err)
	return c
}

// Remaining counts the messages of the stream past the consumer's ack
// floor: not yet delivered, delivered and not acknowledged, or given back
// (NumPending and NumAckPending would count a message given back twice).
// A message acknowledged behind one that is not counts too, which the
// cases, waiting for none or for their one message, never meet.
func (b *sourceStream) Remaining(t *testing.T) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := b.stream.Consumer(ctx, b.durable)
	require.NoError(t, err, "consumer %s", b.durable)
	info, err := c.Info(ctx)
	require.NoError(t, err)
	stream, err := b.stream.Info(ctx)
	require.NoError(t, err)
	return int(stream.State.LastSeq - info.AckFloor.Stream)
}

func (b *sourceStream) Terminated(*testing.T) int { return int(b.terminated.Load()) }
