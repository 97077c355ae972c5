package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// gateStore is a batch store whose each InsertBatch waits for a release
// (when gated) and records the keys of its rows; it deduplicates like the
// unique constraint and refuses the key "refused".
type gateStore struct {
	gated   bool
	fail    error
	entered chan []string // the keys of each batch, as it starts
	release chan struct{}

	mu   sync.Mutex
	keys map[string]bool
}

func newGateStore(gated bool) *gateStore {
	return &gateStore{gated: gated, entered: make(chan []string, 100), release: make(chan struct{}, 100), keys: map[string]bool{}}
}

func (s *gateStore) Insert(ctx context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	res, err := s.InsertBatch(ctx, []queuebox.ReceivedRow{row})
	if err != nil {
		return "", false, err
	}
	return res[0].ID, res[0].Inserted, res[0].Err
}

func (s *gateStore) InsertBatch(ctx context.Context, rows []queuebox.ReceivedRow) ([]queuebox.InsertResult, error) {
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.IdempotencyKey
	}
	select {
	case s.entered <- keys:
	default: // an ungated test that does not read them
	}
	if s.gated {
		select {
		case <-s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.fail != nil {
		return nil, s.fail
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]queuebox.InsertResult, len(rows))
	for i, r := range rows {
		switch {
		case r.IdempotencyKey == "refused":
			out[i].Err = &queuebox.RefusedValueError{Reason: "refused"}
		case !s.keys[r.IdempotencyKey]:
			s.keys[r.IdempotencyKey] = true
			out[i] = queuebox.InsertResult{ID: "id-" + r.IdempotencyKey, Inserted: true}
		}
	}
	return out, nil
}

type answer struct {
	id       string
	inserted bool
	err      error
}

func insertAsync(ctx context.Context, g *GroupCommit, key string) <-chan answer {
	out := make(chan answer, 1)
	go func() {
		id, ok, err := g.Insert(ctx, queuebox.ReceivedRow{IdempotencyKey: key})
		out <- answer{id, ok, err}
	}()
	return out
}

// waitQueued waits until n callers wait in the queue, on the lock that
// guards it; only a hang reaches the bound.
func waitQueued(t *testing.T, g *GroupCommit, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue) >= n
	}, time.Minute, time.Millisecond)
}

// A lone insert commits at once, alone; what arrives while it commits
// forms the next group, one statement for all of them, and each caller
// gets its own answer: new, duplicate (the second of a key), refused.
func TestGroupCommitFormsTheNextGroupWhileOneCommits(t *testing.T) {
	t.Parallel()
	s := newGateStore(true)
	g := NewGroupCommit(s, GroupCommitOptions{})
	ctx := context.Background()
	first := insertAsync(ctx, g, "a")
	require.Equal(t, []string{"a"}, <-s.entered, "no linger: the lone insert goes at once")

	later := map[string]<-chan answer{}
	for i, k := range []string{"b", "c", "b2", "refused"} {
		later[k] = insertAsync(ctx, g, k)
		waitQueued(t, g, i+1)
	}
	dup := insertAsync(ctx, g, "b")
	waitQueued(t, g, 5)
	s.release <- struct{}{}
	require.Equal(t, answer{"id-a", true, nil}, <-first)
	require.ElementsMatch(t, []string{"b", "c", "b2", "refused", "b"}, <-s.entered, "one group for all that waited")
	s.release <- struct{}{}
	require.Equal(t, answer{"id-c", true, nil}, <-later["c"])
	require.ErrorIs(t, (<-later["refused"]).err, queuebox.ErrRefusedValue)
	gotB, gotDup := <-later["b"], <-dup
	require.NotEqual(t, gotB.inserted, gotDup.inserted, "one of the two rows of b is new, the other a duplicate")
}

// The groups are cut at MaxRows.
func TestGroupCommitCapsTheGroup(t *testing.T) {
	t.Parallel()
	s := newGateStore(true)
	g := NewGroupCommit(s, GroupCommitOptions{MaxRows: 3})
	ctx := context.Background()
	var answers []<-chan answer
	answers = append(answers, insertAsync(ctx, g, "k0"))
	<-s.entered
	for i := 1; i <= 7; i++ {
		answers = append(answers, insertAsync(ctx, g, fmt.Sprintf("k%d", i)))
		waitQueued(t, g, i)
	}
	for range 4 {
		s.release <- struct{}{}
	}
	var sizes []int
	for range 3 {
		sizes = append(sizes, len(<-s.entered))
	}
	require.Equal(t, []int{3, 3, 1}, sizes)
	for _, a := range answers {
		require.True(t, (<-a).inserted)
	}
}

// A caller whose ctx ends while it waits returns at once; the group
// goes on for the others, and a row whose caller left before its group
// started is not stored for no one.
func TestGroupCommitCancelledCallerLeavesTheGroupWhole(t *testing.T) {
	t.Parallel()
	s := newGateStore(true)
	g := NewGroupCommit(s, GroupCommitOptions{})
	first := insertAsync(context.Background(), g, "a")
	<-s.entered
	gone, cancel := context.WithCancel(context.Background())
	left := insertAsync(gone, g, "gone")
	waitQueued(t, g, 1)
	stays := insertAsync(context.Background(), g, "stays")
	waitQueued(t, g, 2)
	cancel()
	require.ErrorIs(t, (<-left).err, context.Canceled)
	s.release <- struct{}{}
	require.True(t, (<-first).inserted)
	require.Equal(t, []string{"stays"}, <-s.entered)
	s.release <- struct{}{}
	require.Equal(t, answer{"id-stays", true, nil}, <-stays)
}

// A failed statement fails every caller of its group, and the next
// group commits.
func TestGroupCommitStoreFailureFailsTheGroup(t *testing.T) {
	t.Parallel()
	down := errors.New("down")
	s := newGateStore(false)
	s.fail = down
	g := NewGroupCommit(s, GroupCommitOptions{})
	_, _, err := g.Insert(context.Background(), queuebox.ReceivedRow{IdempotencyKey: "a"})
	require.ErrorIs(t, err, down)
}

// Many callers, each inserting keys that others insert too, with two
// groups in flight: one row per key, and exactly one caller of each key
// hears new.
func TestGroupCommitConcurrentCallersTellTheTruth(t *testing.T) {
	t.Parallel()
	for _, inFlight := range []int{1, 2} {
		s := newGateStore(false)
		g := NewGroupCommit(s, GroupCommitOptions{MaxRows: 5, MaxInFlight: inFlight})
		var (
			wg   sync.WaitGroup
			told [40]atomic.Int32
		)
		for c := range 16 {
			wg.Go(func() {
				for i := range 40 {
					k := (i + c) % 40
					_, ok, err := g.Insert(context.Background(), queuebox.ReceivedRow{IdempotencyKey: fmt.Sprint(k)})
					if err != nil {
						t.Errorf("insert: %v", err)
					}
					if ok {
						told[k].Add(1)
					}
				}
			})
		}
		wg.Wait()
		for k := range told {
			require.Equal(t, int32(1), told[k].Load(), "key %d, %d in flight", k, inFlight)
		}
	}
}
