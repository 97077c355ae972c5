package deliver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// claimCounter is an outbox store whose claims return nothing and are
// counted on a channel.
type claimCounter struct {
	queuebox.OutboxStore
	claims chan struct{}
}

func (c claimCounter) Claim(context.Context, int) ([]queuebox.ClaimedMessage, error) {
	c.claims <- struct{}{}
	return nil, nil
}

// TestClaimsWaitForTheMoveOfAPausedBacklog: while a paused destination's
// backlog moves, the claim does not run (here its context ends first and
// it returns without claiming); once the move ends, a waiting claim runs.
func TestClaimsWaitForTheMoveOfAPausedBacklog(t *testing.T) {
	pp := &postponer{until: map[string]time.Time{}}
	src := &laneSource{OutboxStore: claimCounter{claims: make(chan struct{}, 4)}, postponer: pp}
	claims := src.OutboxStore.(claimCounter).claims

	_, err := src.Claim(context.Background(), 10)
	require.NoError(t, err)
	require.Len(t, claims, 1, "no move in flight: the claim runs at once")
	<-claims

	end := pp.begin()
	endOther := pp.begin() // two destinations moving at once
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = src.Claim(ctx, 10)
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, claims, "no claim while a move is in flight")

	done := make(chan error, 1)
	go func() {
		_, err := src.Claim(context.Background(), 10)
		done <- err
	}()
	end()
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = src.Claim(ctx, 10)
	require.ErrorIs(t, err, context.Canceled, "one move is still in flight")
	endOther()
	require.NoError(t, <-done)
	require.Len(t, claims, 1, "the waiting claim ran once both moves ended")
}
