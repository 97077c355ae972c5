package capture

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSupervisorRetriesFailuresAndStopsOnAFault(t *testing.T) {
	t.Parallel()
	status := NewStatus()
	require.ErrorContains(t, status.Check(context.Background()), "capture is starting")
	var attempts, wakes atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Supervisor{Status: status, Logger: slog.New(slog.DiscardHandler), MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
			BeforeAttempt: func() { wakes.Add(1) }}.Run(ctx, func(context.Context) error {
			if attempts.Add(1) < 3 {
				return errors.New("connection refused")
			}
			return &Fault{Kind: FaultStateCorrupt, Detail: "x"}
		})
	}()
	var fault *Fault
	require.Eventually(t, func() bool { return errors.As(status.Check(ctx), &fault) }, 30*time.Second, time.Millisecond)
	require.Equal(t, FaultStateCorrupt, fault.Kind)
	require.EqualValues(t, 3, attempts.Load(), "two failures retried, the fault not")
	require.EqualValues(t, 3, wakes.Load(), "delivery is woken on every attempt")
	cancel()
	<-done
	require.EqualValues(t, 3, attempts.Load())
}
