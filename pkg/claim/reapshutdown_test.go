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
	reaping  chan struct{}
	shutdown chan struct{}
	calls    atomic.Int64
}

func (s *commitOnShutdownSource) ReapExpired(ctx context.Context) (int64, error) {
	if s.calls.Add(1) > 1 {
		return 0, nil
	}
	close(s.reaping)
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
	src := &commitOnShutdownSource{fakeSource: newSource(), reaping: make(chan struct{}), shutdown: make(chan struct{})}
	var reaped atomic.Int64
	l := claim.New(claim.Config{Name: "reap", PollInterval: time.Hour, LeaseDuration: 50 * time.Millisecond,
		Logger: quiet(), Hooks: claim.Hooks{Reaped: func(n int64) { reaped.Add(n) }}}, src, func(context.Context, item) {})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	<-src.reaping
	cancel()
	close(src.shutdown)
	require.NoError(t, <-done)
	require.Equal(t, int64(2), reaped.Load())
}
