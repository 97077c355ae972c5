package brokertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func testDelivered(t *testing.T, f Factory) {
	p, dest := open(t, f, longTimeout)
	d := delivery(t, 2)
	require.NoError(t, p.Publish(t.Context(), d))
	got := dest.Received(t)
	require.Len(t, got, 1)
	requireDelivered(t, got, d)
}

func testEachPublishOnce(t *testing.T, f Factory) {
	p, dest := open(t, f, longTimeout)
	sent := make([]queuebox.Delivery, 10)
	for i := range sent {
		sent[i] = delivery(t, i)
		require.NoError(t, p.Publish(t.Context(), sent[i]))
		// Nil means accepted: the destination holds every message so far.
		require.Len(t, dest.Received(t), i+1)
	}
	got := dest.Received(t)
	for _, d := range sent {
		requireDelivered(t, got, d)
	}
}

func testCanceledBefore(t *testing.T, f Factory) {
	p, _ := open(t, f, longTimeout)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := await(t, publishAsync(ctx, p, delivery(t, 0)), slack, "Publish with a cancelled context")
	require.ErrorIs(t, err, context.Canceled)
}

func testCanceledWhile(t *testing.T, f Factory) {
	p, dest := open(t, f, longTimeout)
	dest.SetFault(t, Stall)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := publishAsync(ctx, p, delivery(t, 0))
	waitArrival(t, dest, 1)
	cancel()
	// The publisher's own timeout is a minute: only the cancel ends it.
	err := await(t, done, slack, "Publish after its context was cancelled")
	require.ErrorIs(t, err, context.Canceled)
}

func testTimeout(t *testing.T, f Factory) {
	p, dest := open(t, f, faultTimeout)
	dest.SetFault(t, Stall)
	err := await(t, publishAsync(t.Context(), p, delivery(t, 0)), faultTimeout+slack, "Publish to a stalled destination")
	require.Error(t, err)
	require.NoError(t, t.Context().Err(), "the publisher's timeout ended it, not the test")

	dest.SetFault(t, Healthy)
	d := delivery(t, 1)
	require.NoError(t, p.Publish(t.Context(), d), "the publisher delivers again after a timeout")
	requireDelivered(t, dest.Received(t), d)
}

func testRejected(t *testing.T, f Factory) {
	p, dest := open(t, f, longTimeout)
	dest.SetFault(t, Reject)
	require.Error(t, p.Publish(t.Context(), delivery(t, 0)))
	require.Empty(t, dest.Received(t), "a refused message is not stored")

	dest.SetFault(t, Healthy)
	d := delivery(t, 1)
	require.NoError(t, p.Publish(t.Context(), d), "the publisher delivers again after a refusal")
	got := dest.Received(t)
	require.Len(t, got, 1)
	requireDelivered(t, got, d)
}

func testUnreachable(t *testing.T, f Factory) {
	p, err := f.Unreachable(t, Config{Timeout: longTimeout})
	if err != nil {
		t.Logf("the constructor refused the unreachable destination: %v", err)
		return
	}
	require.NotNil(t, p)
	closed := make(chan error, 1)
	t.Cleanup(func() { go func() { closed <- p.Close() }(); _ = await(t, closed, slack, "Close") })
	err = await(t, publishAsync(t.Context(), p, delivery(t, 0)), slack, "Publish to a refused address")
	require.Error(t, err)
}

func testPublishAfterClose(t *testing.T, f Factory) {
	p, dest := open(t, f, longTimeout)
	d := delivery(t, 0)
	require.NoError(t, p.Publish(t.Context(), d))
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "Close is idempotent")
	err := await(t, publishAsync(t.Context(), p, delivery(t, 1)), slack, "Publish after Close")
	require.Error(t, err)
	got := dest.Received(t)
	require.Len(t, got, 1, "Publish after Close sends nothing")
	requireDelivered(t, got, d)
}

func testCloseWhilePublishing(t *testing.T, f Factory) {
	p, dest := open(t, f, faultTimeout)
	dest.SetFault(t, Stall)
	done := publishAsync(t.Context(), p, delivery(t, 0))
	waitArrival(t, dest, 1)
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	require.NoError(t, await(t, closed, faultTimeout+slack, "Close with a publish in flight"))
	// The publish in flight ends by Close or by its own timeout; either
	// result is allowed, hanging is not.
	_ = await(t, done, faultTimeout+slack, "the publish in flight during Close")
	require.Error(t, await(t, publishAsync(t.Context(), p, delivery(t, 1)), slack, "Publish after Close"))
}

func testConcurrentPublish(t *testing.T, f Factory) {
	const workers, each = 8, 16
	p, dest := open(t, f, longTimeout)
	sent := make([]queuebox.Delivery, workers*each)
	for i := range sent {
		sent[i] = delivery(t, i)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(sent))
	for w := range workers {
		wg.Go(func() {
			for i := w * each; i < (w+1)*each; i++ {
				errs[i] = p.Publish(t.Context(), sent[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	got := dest.Received(t)
	require.Len(t, got, len(sent))
	for _, d := range sent {
		requireDelivered(t, got, d)
	}
}

// testConcurrentClose closes the publisher while eight goroutines publish.
// Every Publish returns, nil or an error, and each nil is a message that
// the destination holds.
func testConcurrentClose(t *testing.T, f Factory) {
	const workers, each = 8, 32
	p, dest := open(t, f, longTimeout)
	var (
		mu       sync.Mutex
		accepted []queuebox.Delivery
		first    = make(chan struct{})
		once     sync.Once
		wg       sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				d := delivery(t, w*each+i)
				if p.Publish(t.Context(), d) != nil {
					return
				}
				mu.Lock()
				accepted = append(accepted, d)
				mu.Unlock()
				once.Do(func() { close(first) })
			}
		})
	}
	select {
	case <-first:
	case <-time.After(slack):
		t.Fatal("no publish succeeded")
	}
	require.NoError(t, p.Close())
	finished := make(chan error, 1)
	go func() { wg.Wait(); finished <- nil }()
	_ = await(t, finished, slack, "the publishes racing Close")
	got := dest.Received(t)
	for _, d := range accepted {
		requireDelivered(t, got, d)
	}
}
