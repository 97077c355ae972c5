package deliver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A try that failed may have committed unanswered, so every later try of
// the same outcomes goes through rewrite, which can tell such rows from
// lost claims; the first try uses write.
func TestFinisherUsesRewriteAfterAFailedTry(t *testing.T) {
	t.Parallel()
	var writes, rewrites atomic.Int32
	write := func(context.Context, []queuebox.Outcome) (map[string]bool, error) {
		writes.Add(1)
		return nil, errors.New("connection reset after commit")
	}
	rewrite := func(_ context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
		rewrites.Add(1)
		return map[string]bool{outcomes[0].Lease.ID: true}, nil
	}
	f := newFinisher(write, rewrite, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
	stop, cancel := context.WithCancel(context.Background())
	go f.run(stop)
	defer func() { cancel(); <-f.stopped }()

	got := make(chan finishResult, 1)
	f.submit(queuebox.Outcome{Lease: claim.Lease{ID: "a", Token: "t"}, Kind: queuebox.OutcomeSent},
		func(r finishResult) { got <- r })
	select {
	case r := <-got:
		require.NoError(t, r.err)
		require.True(t, r.kept, "the row counts as written")
	case <-time.After(20 * time.Second):
		t.Fatal("the outcome was not written")
	}
	require.Equal(t, int32(1), writes.Load())
	require.Equal(t, int32(1), rewrites.Load())
}
