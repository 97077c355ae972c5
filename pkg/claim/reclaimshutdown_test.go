package claim_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// commitOnShutdownSource answers its first reclaim only after the loop's
// shutdown began, as a statement that commits while the process stops:
// a context the shutdown cancelled would turn that answer into an error.
type commitOnShutdownSource struct {
	*fakeSource
	reclaiming chan struct{}
	shutdown   chan struct{}
	calls      atomic.Int64
}

func (s *commitOnShutdownSource) Reclaim(ctx context.Context) (int64, error) {
	if s.calls.Add(1) > 1 {
		return 0, nil
	}
	close(s.reclaiming)
	<-s.shutdown
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return 2, nil
}

// A reclaim whose statement commits as the shutdown begins still reports
// its rows: the log line and the counter match the table.
func TestAReclaimThatEndsDuringTheShutdownIsReported(t *testing.T) {
	t.Parallel()
	src := &commitOnShutdownSource{fakeSource: newSource(), reclaiming: make(chan struct{}), shutdown: make(chan struct{})}
	var reclaimed atomic.Int64
	l := claim.New(claim.Config{Name: "reclaim", PollInterval: time.Hour, LeaseDuration: 50 * time.Millisecond,
		Logger: quiet(), Hooks: claim.Hooks{Reclaimed: func(n int64) { reclaimed.Add(n) }}}, src, func(context.Context, item) {})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	<-src.reclaiming
	cancel()
	close(src.shutdown)
	require.NoError(t, <-done)
	require.Equal(t, int64(2), reclaimed.Load())
}
