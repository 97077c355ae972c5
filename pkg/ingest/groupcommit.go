package ingest

import (
	"context"
	"fmt"
	"sync"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Defaults of GroupCommitOptions.
const (
	DefaultGroupRows     = 256
	DefaultGroupInFlight = 1
)

// GroupCommitOptions bound the groups of a GroupCommit.
type GroupCommitOptions struct {
	// MaxRows bounds the rows of one group; 0 is DefaultGroupRows.
	MaxRows int
	// MaxInFlight bounds the groups committing at once; 0 is
	// DefaultGroupInFlight.
	MaxInFlight int
}

// GroupCommit is a Store whose concurrent Inserts share one InsertBatch:
// the rows that arrive while a group commits form the next group, so a
// lone insert goes at once (no linger) and, under load, many rows share a
// statement and a commit. Each Insert returns only after the commit that
// holds its row, with its own answer. There is no goroutine of its own:
// a caller whose row waits commits the next group (see Insert), so
// nothing needs to be started or stopped. It is safe for concurrent use.
type GroupCommit struct {
	store    Store
	maxRows  int
	inFlight int

	mu      sync.Mutex
	queue   []*groupWait
	leaders int // callers committing a group now
}

// groupWait is one Insert waiting in a group. Its fields after row are
// guarded by GroupCommit.mu.
type groupWait struct {
	ctx  context.Context
	row  queuebox.ReceivedRow
	done chan struct{} // closed once res and err hold the answer
	lead chan struct{} // closed when this caller is to commit the next group
	left bool          // the caller's ctx ended before either
	led  bool          // lead is closed
	res  queuebox.InsertResult
	err  error
}

var _ queuebox.InboxBatchStore = (*GroupCommit)(nil)

// NewGroupCommit returns a GroupCommit over store, whose InsertBatch (or,
// without one, Insert row by row) stores each group.
func NewGroupCommit(store Store, opts GroupCommitOptions) *GroupCommit {
	if opts.MaxRows <= 0 {
		opts.MaxRows = DefaultGroupRows
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultGroupInFlight
	}
	return &GroupCommit{store: store, maxRows: opts.MaxRows, inFlight: opts.MaxInFlight}
}

// Insert stores row in the next group to commit and returns its answer,
// as queuebox.InboxStore documents: a refused value fails this row alone,
// and an error of the group's statement fails every row of the group.
// When ctx ends before the group commits, Insert returns its cause at
// once; the row may still be stored (a repeat then finds it a duplicate),
// and the group's other rows are not affected: a group's statement never
// runs under the ctx of one caller, only under the store's own bound.
func (g *GroupCommit) Insert(ctx context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	w := &groupWait{ctx: ctx, row: row, done: make(chan struct{}), lead: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	if g.leaders < g.inFlight {
		g.leaders++
		g.mu.Unlock()
		return g.commitUntil(w)
	}
	g.mu.Unlock()
	select {
	case <-w.done:
		return w.answer()
	case <-w.lead:
		return g.commitUntil(w)
	case <-ctx.Done():
	}
	g.mu.Lock()
	switch {
	case closed(w.done):
		g.mu.Unlock()
		return w.answer()
	case closed(w.lead):
		g.mu.Unlock()
		return g.commitUntil(w)
	}
	w.left = true
	g.mu.Unlock()
	return "", false, fmt.Errorf("wait for the group commit: %w", context.Cause(ctx))
}

// InsertBatch stores rows as one group of their own, through the store's
// batch insert; see queuebox.InboxBatchStore.
func (g *GroupCommit) InsertBatch(ctx context.Context, rows []queuebox.ReceivedRow) ([]queuebox.InsertResult, error) {
	return insertBatch(ctx, g.store, rows)
}

// commitUntil commits groups from the head of the queue until w has its
// answer, then hands the lead to the first caller still waiting, so that
// the next group forms while this one committed and w returns at once.
func (g *GroupCommit) commitUntil(w *groupWait) (string, bool, error) {
	for {
		g.mu.Lock()
		batch := g.take()
		if len(batch) == 0 {
			// Another leader's group holds w's row.
			g.leaders--
			g.mu.Unlock()
			<-w.done
			return w.answer()
		}
		g.mu.Unlock()
		g.commit(w.ctx, batch)
		g.mu.Lock()
		if closed(w.done) {
			g.handOff()
			g.mu.Unlock()
			return w.answer()
		}
		g.mu.Unlock()
	}
}

// take removes up to maxRows waiting callers from the head of the queue,
// dropping those that left: no one waits for their answer. The caller
// holds g.mu.
func (g *GroupCommit) take() []*groupWait {
	var batch []*groupWait
	n := 0
	for ; n < len(g.queue) && len(batch) < g.maxRows; n++ {
		if w := g.queue[n]; !w.left {
			batch = append(batch, w)
		}
	}
	g.queue = g.queue[n:]
	return batch
}

// handOff gives the lead to the first caller still waiting, or ends this
// leader when none waits. The caller holds g.mu.
func (g *GroupCommit) handOff() {
	for _, w := range g.queue {
		if !w.left && !w.led {
			w.led = true
			close(w.lead)
			return
		}
	}
	g.leaders--
}

// commit stores one group and answers each of its callers. The statement
// runs without the leader's cancellation: the rows of other callers ride
// on it, and the store's statement timeout bounds it.
func (g *GroupCommit) commit(ctx context.Context, batch []*groupWait) {
	rows := make([]queuebox.ReceivedRow, len(batch))
	for i, w := range batch {
		rows[i] = w.row
	}
	results, err := insertBatch(context.WithoutCancel(ctx), g.store, rows)
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, w := range batch {
		if err != nil {
			w.err = err
		} else {
			w.res = results[i]
		}
		close(w.done)
	}
}

func (w *groupWait) answer() (string, bool, error) {
	if w.err != nil {
		return "", false, w.err
	}
	return w.res.ID, w.res.Inserted, w.res.Err
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
