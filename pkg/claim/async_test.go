package claim_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// TestAsyncItemsStayHeldUntilDone: an async handler frees its worker at
// once, but its item stays held (and renewed) until done is called, and
// the drain waits for done.
func TestAsyncItemsStayHeldUntilDone(t *testing.T) {
	t.Parallel()
	src := newSource(item{"a", "t"}, item{"b", "t"}, item{"c", "t"})
	var mu sync.Mutex
	var pending []func()
	started := make(chan string, 3)
	l := claim.NewAsync[item](claim.Config{Name: "async", BatchSize: 10, Concurrency: 1, PollInterval: time.Hour,
		LeaseDuration: 30 * time.Millisecond, ShutdownTimeout: 20 * time.Second, Logger: quiet()},
		src, func(_ context.Context, it item, done func()) {
			mu.Lock()
			pending = append(pending, done)
			mu.Unlock()
			started <- it.id
		})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- l.Run(ctx) }()
	// One worker handles all three: it does not wait for done.
	got := []string{<-started, <-started, <-started}
	require.ElementsMatch(t, []string{"a", "b", "c"}, got)
	require.Equal(t, 3, l.Held())
	// Renewals still carry the three leases while their outcomes wait.
	require.Eventually(t, func() bool {
		src.mu.Lock()
		defer src.mu.Unlock()
		return len(src.renewed) > 0 && len(src.renewed[len(src.renewed)-1]) == 3
	}, 10*time.Second, 5*time.Millisecond)
	cancel()
	select {
	case <-stopped:
		t.Fatal("Run returned while outcomes were pending")
	case <-time.After(50 * time.Millisecond):
	}
	mu.Lock()
	for _, done := range pending {
		done()
		done() // a second call does nothing
	}
	mu.Unlock()
	require.NoError(t, <-stopped)
	require.Zero(t, l.Held())
}

// TestAsyncLoopClaimsTheNextBatchAhead: while the rows of one batch wait
// for their outcome writes, the loop claims the next whole batch (so a
// claim is never cut to the few rows freed since the last one), and it
// never holds more than two batches.
func TestAsyncLoopClaimsTheNextBatchAhead(t *testing.T) {
	t.Parallel()
	const batch = 10
	src := newSource(items("x", 3*batch)...)
	var mu sync.Mutex
	var pending []func()
	l := claim.NewAsync[item](claim.Config{Name: "ahead", BatchSize: batch, Concurrency: 2, PollInterval: tick,
		LeaseDuration: time.Minute, ShutdownTimeout: 20 * time.Second, Logger: quiet()},
		src, func(_ context.Context, _ item, done func()) {
			mu.Lock()
			pending = append(pending, done)
			mu.Unlock()
		})
	cancel, stopped := running(t, l)
	defer cancel()

	require.Eventually(t, func() bool { return l.Held() == 2*batch }, wait, tick)
	// Nothing is finished: the loop must not claim a third batch.
	require.Never(t, func() bool { return l.Held() > 2*batch }, 100*time.Millisecond, tick)
	src.mu.Lock()
	require.Len(t, src.claims, 2)
	for _, c := range src.claims {
		require.Len(t, c, batch, "each claim takes a whole batch")
	}
	src.mu.Unlock()

	// Finishing every held row frees the room for the last batch. The
	// first rows finished already make room, so the rest may come in more
	// than one claim: wait for the source to run dry, not for a count.
	mu.Lock()
	for _, done := range pending {
		done()
	}
	pending = nil
	mu.Unlock()
	require.Eventually(t, func() bool {
		src.mu.Lock()
		defer src.mu.Unlock()
		return len(src.queue) == 0
	}, wait, tick)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(pending) == batch }, wait, tick)
	mu.Lock()
	for _, done := range pending {
		done()
	}
	mu.Unlock()
	cancel()
	<-stopped
}
