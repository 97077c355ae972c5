package deliver

import (
	"context"
	"errors"
	"fmt"
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
	f.submit(queuebox.Outcome{Lease: claim.Lease{ID: "a", Token: "t"}, Kind: queuebox.OutcomeSent}, true,
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

// recordingWriter records the ids of each write's outcomes.
type recordingWriter struct {
	writes chan []string
}

func (w recordingWriter) write(_ context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	ids := make([]string, len(outcomes))
	kept := map[string]bool{}
	for i, o := range outcomes {
		ids[i] = o.Lease.ID
		kept[o.Lease.ID] = true
	}
	w.writes <- ids
	return kept, nil
}

// startFinisher runs a finisher that lingers for linger and returns its
// writes; stopping it is the test's cleanup unless the test stops it.
func startFinisher(t *testing.T, linger time.Duration) (*finisher, <-chan []string, context.CancelFunc) {
	t.Helper()
	w := recordingWriter{writes: make(chan []string, 10)}
	f := newFinisher(w.write, w.write, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.lingerFor = linger
	stop, cancel := context.WithCancel(context.Background())
	go f.run(stop)
	t.Cleanup(func() { cancel(); <-f.stopped })
	return f, w.writes, cancel
}

func outcome(id string) queuebox.Outcome {
	return queuebox.Outcome{Lease: claim.Lease{ID: id, Token: "t"}, Kind: queuebox.OutcomeSent}
}

func nextWrite(t *testing.T, writes <-chan []string) []string {
	t.Helper()
	select {
	case ids := <-writes:
		return ids
	case <-time.After(20 * time.Second):
		t.Fatal("no write")
		return nil
	}
}

// Outcomes of rows without a key wait for company; one of a keyed row,
// whose key's next row waits for it, ends the wait and goes with them.
func TestFinisherLingersOnlyWhileNoRowWaits(t *testing.T) {
	t.Parallel()
	f, writes, _ := startFinisher(t, time.Hour)
	f.submit(outcome("a"), false, func(finishResult) {})
	f.submit(outcome("b"), false, func(finishResult) {})
	select {
	case ids := <-writes:
		t.Fatalf("unkeyed outcomes were written before the linger ended: %v", ids)
	case <-time.After(50 * time.Millisecond):
	}
	f.submit(outcome("k"), true, func(finishResult) {})
	require.Equal(t, []string{"a", "b", "k"}, nextWrite(t, writes))

	f.submit(outcome("k2"), true, func(finishResult) {})
	require.Equal(t, []string{"k2"}, nextWrite(t, writes), "a keyed outcome alone is written at once")
}

func TestFinisherLingersAtMostItsTime(t *testing.T) {
	t.Parallel()
	f, writes, _ := startFinisher(t, time.Millisecond)
	f.submit(outcome("a"), false, func(finishResult) {})
	require.Equal(t, []string{"a"}, nextWrite(t, writes))
}

func TestFinisherStopsLingeringAtShutdown(t *testing.T) {
	t.Parallel()
	f, writes, stop := startFinisher(t, time.Hour)
	f.submit(outcome("a"), false, func(finishResult) {})
	stop()
	require.Equal(t, []string{"a"}, nextWrite(t, writes))
}

func TestFinisherLingersUntilAFullGroup(t *testing.T) {
	t.Parallel()
	f, writes, _ := startFinisher(t, time.Hour)
	for i := range lingerRows {
		f.submit(outcome(string(rune('A'+i%26))+itoa(i)), false, func(finishResult) {})
	}
	require.Len(t, nextWrite(t, writes), lingerRows)
}

func itoa(i int) string { return fmt.Sprint(i) }

// heldRows stands in for the claim loop's count of held rows: a row is
// held from its claim until its outcome's write has run its then.
type heldRows struct{ n atomic.Int64 }

func (h *heldRows) claim(n int)          { h.n.Add(int64(n)) }
func (h *heldRows) count() int           { return int(h.n.Load()) }
func (h *heldRows) written(finishResult) { h.n.Add(-1) }

// With no other row on its way to the writer, company cannot come before
// the next claim: an unkeyed outcome is written at once, not after the
// linger (an hour here).
func TestFinisherWritesAtOnceWhenNoOtherRowIsOnItsWay(t *testing.T) {
	t.Parallel()
	f, writes, _ := startFinisher(t, time.Hour)
	var held heldRows
	f.held = held.count
	held.claim(1)
	f.submit(outcome("a"), false, held.written)
	require.Equal(t, []string{"a"}, nextWrite(t, writes))

	held.claim(2)
	f.submit(outcome("b"), false, held.written)
	select {
	case ids := <-writes:
		t.Fatalf("an outcome was written while another row was still being published: %v", ids)
	case <-time.After(50 * time.Millisecond):
	}
	f.submit(outcome("c"), false, held.written)
	require.Equal(t, []string{"b", "c"}, nextWrite(t, writes), "the last row on its way ends the wait")
}
