package claim_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Producers add rows and wake the loop while another goroutine makes
// renewals drop random rows. Whatever the interleaving: at most
// Concurrency handlers run, no lease is handled twice, a lease is
// reported lost at most once, a handler is cancelled only as a lost lease,
// and every claimed lease ends handled or reported lost.
func TestLoopInvariantsUnderConcurrentProducersAndLosses(t *testing.T) {
	t.Parallel()
	const producers, perProducer, concurrency = 4, 50, 3
	src := newSource()
	var inflight peak

	var mu sync.Mutex
	handled := map[claim.Lease]int{}
	lost := map[claim.Lease]int{}
	var badCauses []error
	l := claim.New(claim.Config{
		Name: "test", BatchSize: 6, Concurrency: concurrency, PollInterval: forever,
		LeaseDuration: 15 * time.Millisecond, ShutdownTimeout: time.Minute, Logger: quiet(),
		Hooks: claim.Hooks{Lost: func(le claim.Lease) {
			mu.Lock()
			defer mu.Unlock()
			lost[le]++
		}},
	}, src, func(ctx context.Context, it item) {
		inflight.enter()
		defer inflight.leave()
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); !errors.Is(cause, queuebox.ErrLeaseLost) {
				mu.Lock()
				badCauses = append(badCauses, cause)
				mu.Unlock()
			}
		case <-time.After(time.Duration(rand.IntN(3000)) * time.Microsecond): // the work
		}
		mu.Lock()
		defer mu.Unlock()
		handled[it.Lease()]++
	})
	running(t, l)

	stopChaos := make(chan struct{})
	chaosDone := make(chan struct{})
	go func() {
		defer close(chaosDone)
		for {
			select {
			case <-stopChaos:
				return
			case <-time.After(time.Millisecond):
			}
			id := fmt.Sprintf("p%d-%03d", rand.IntN(producers), rand.IntN(perProducer))
			src.setDrop(id, rand.IntN(2) == 0)
		}
	}()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			all := items(fmt.Sprintf("p%d", p), perProducer)
			for i := 0; i < len(all); i += 3 {
				src.add(all[i:min(i+3, len(all))]...)
				l.Wake()
			}
		})
	}
	wg.Wait()

	var all []item
	for p := range producers {
		all = append(all, items(fmt.Sprintf("p%d", p), perProducer)...)
	}
	settled := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, it := range all {
			if handled[it.Lease()] == 0 && lost[it.Lease()] == 0 {
				return false
			}
		}
		return true
	}
	require.Eventually(t, settled, 30*time.Second, tick)
	close(stopChaos)
	<-chaosDone
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)

	mu.Lock()
	defer mu.Unlock()
	require.LessOrEqual(t, inflight.max.Load(), int64(concurrency))
	require.Empty(t, badCauses, "a handler was cancelled for another reason than a lost lease")
	for le, n := range handled {
		require.Equal(t, 1, n, "lease %v handled %d times", le, n)
	}
	for le, n := range lost {
		require.Equal(t, 1, n, "lease %v reported lost %d times", le, n)
	}
}
