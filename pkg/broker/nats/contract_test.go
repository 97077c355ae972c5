package nats_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// TestPublisherContract runs the suite every publisher passes, against
// the NATS server of NATS_URL, each case on a stream of its own.
func TestPublisherContract(t *testing.T) {
	t.Parallel()
	brokertest.Exercise(t, brokertest.Factory{
		New: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, brokertest.Destination) {
			dest := newStreamDestination(t)
			p, err := natsb.New(natsb.Options{Name: "contract", Conn: natsb.Conn{Servers: natstest.URL()},
				Subject: dest.prefix + ".{{ topic }}", Timeout: cfg.Timeout})
			require.NoError(t, err)
			return p, dest
		},
		Unreachable: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, error) {
			return natsb.New(natsb.Options{Name: "contract", Conn: natsb.Conn{Servers: brokertest.UnreachableURL(t)},
				Subject: "qbtest.unreachable", Timeout: cfg.Timeout})
		},
	})
}

// streamDestination is a JetStream stream as a brokertest.Destination.
// Reject shrinks the stream's largest message to one byte, so the stream
// answers every publish with an error acknowledgement. Stall takes the
// subjects off the stream and answers nothing: a subscriber of the
// publisher's subjects receives each publish and never replies.
type streamDestination struct {
	js     jetstream.JetStream
	nc     *gonats.Conn
	stream jetstream.Stream
	cfg    jetstream.StreamConfig
	prefix string
	held   *gonats.Subscription
	stalls atomic.Int64
}

func newStreamDestination(t *testing.T) *streamDestination {
	nc, js := natstest.Connect(t, natstest.URL())
	s, prefix := natstest.Stream(t, js)
	return &streamDestination{js: js, nc: nc, stream: s, cfg: s.CachedInfo().Config, prefix: prefix}
}

func (d *streamDestination) Received(t *testing.T) []brokertest.Message {
	var out []brokertest.Message
	for _, m := range natstest.Messages(t, d.stream) {
		attempt, err := strconv.Atoi(m.Header.Get(natsb.HeaderAttempt))
		require.NoError(t, err, "x-attempt of %s", natstest.String(m))
		out = append(out, brokertest.Message{ID: m.Header.Get(natsb.HeaderMessageID),
			Topic: m.Header.Get(natsb.HeaderTopic), Attempt: attempt, Body: m.Data, Headers: m.Header})
	}
	return out
}

func (d *streamDestination) Arrivals(t *testing.T) int {
	return len(natstest.Messages(t, d.stream)) + int(d.stalls.Load())
}

func (d *streamDestination) SetFault(t *testing.T, f brokertest.Fault) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := d.cfg
	if d.held != nil {
		require.NoError(t, d.held.Unsubscribe())
		d.held = nil
	}
	switch f {
	case brokertest.Healthy:
	case brokertest.Reject:
		cfg.MaxMsgSize = 1
	case brokertest.Stall:
		// A stream needs a subject; this one is never published to.
		cfg.Subjects = []string{d.prefix + "-stalled.none"}
		sub, err := d.nc.Subscribe(d.prefix+".>", func(*gonats.Msg) { d.stalls.Add(1) })
		require.NoError(t, err)
		require.NoError(t, d.nc.FlushWithContext(ctx))
		d.held = sub
	default:
		t.Fatalf("unknown fault %d", f)
	}
	_, err := d.js.UpdateStream(ctx, cfg)
	require.NoError(t, err)
}
