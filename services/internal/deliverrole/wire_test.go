package deliverrole

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// draining stands for the poller: after its context ends it still
// publishes the rows it holds, as the shutdown drain does.
type draining struct {
	pub      *fakePublisher
	closedAt atomic.Bool // whether the publisher was closed when the drain published
}

func (d *draining) Name() string { return "outbox-poller" }

func (d *draining) Run(ctx context.Context) error {
	<-ctx.Done()
	d.closedAt.Store(d.pub.closed.Load())
	return nil
}

type fakePublisher struct{ closed atomic.Bool }

func (f *fakePublisher) Publish(context.Context, queuebox.Delivery) error { return nil }

func (f *fakePublisher) Close() error { f.closed.Store(true); return nil }

func TestPublishersCloseOnlyAfterThePollerDrained(t *testing.T) {
	t.Parallel()
	pub := &fakePublisher{}
	poller := &draining{pub: pub}
	c := closeAfter{poller, map[string]queuebox.Publisher{"webhook": pub}}
	require.Equal(t, "outbox-poller", c.Name())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	cancel()
	require.NoError(t, <-done)
	require.False(t, poller.closedAt.Load(), "the drain must publish through open publishers")
	require.True(t, pub.closed.Load(), "the publishers close once the poller returned")
}
