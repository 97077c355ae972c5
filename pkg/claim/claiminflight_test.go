package claim_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// slowClaimSource holds its first claim until the test lets it go, as a
// claim statement still running when SIGTERM arrives would.
type slowClaimSource struct {
	*fakeSource
	entered chan struct{}
	proceed chan struct{}
	once    sync.Once
	ctxErr  error
}

func (s *slowClaimSource) Claim(ctx context.Context, limit int) ([]item, error) {
	first := false
	s.once.Do(func() { first = true })
	if first {
		close(s.entered)
		<-s.proceed
		s.ctxErr = ctx.Err()
	}
	return s.fakeSource.Claim(ctx, limit)
}

// TestAClaimInFlightAtShutdownIsWorked: a shutdown during a claim must not
// cut the claim short (its rows may already be committed as processing);
// the claimed rows are handled in the drain window.
func TestAClaimInFlightAtShutdownIsWorked(t *testing.T) {
	t.Parallel()
	src := &slowClaimSource{fakeSource: newSource(item{"a", "t1"}, item{"b", "t1"}),
		entered: make(chan struct{}), proceed: make(chan struct{})}
	var mu sync.Mutex
	var handled []string
	l := claim.New[item](claim.Config{Name: "test", BatchSize: 10, Concurrency: 2, PollInterval: time.Hour,
		LeaseDuration: time.Hour, ShutdownTimeout: 10 * time.Second, Logger: quiet()},
		src, func(ctx context.Context, it item) {
			mu.Lock()
			defer mu.Unlock()
			require.NoError(t, ctx.Err(), "worked before the drain window ends")
			handled = append(handled, it.id)
		})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	<-src.entered
	cancel()
	close(src.proceed)
	require.NoError(t, <-done)
	require.NoError(t, src.ctxErr, "the claim statement kept its context")
	require.ElementsMatch(t, []string{"a", "b"}, handled)
}
