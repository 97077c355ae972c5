package postgres

import (
	"sync"

	"github.com/alternayte/queuebox/pkg/schema"
)

// walk is the fairness state of a claim that walks keys (the outbox) or
// aggregates (the relay) in index order: where the next walk starts, and
// which class of rows, keyed or unkeyed, fills a batch first. Each claim
// alternates the classes and starts after the last key the previous one
// took, so under a backlog every key gets its turn and neither class
// starves the other. The cursor decides only the order in which keys are
// offered, never whether a row may be claimed. It is safe for concurrent
// use.
type walk struct {
	mu        sync.Mutex
	cursor    string // the last key the keyed walk claimed
	keyedTurn bool
}

// next returns the cursor and whether keyed rows come first for the next
// claim, and flips the class order for the one after.
func (w *walk) next() (cursor string, keyedFirst bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cursor, keyedFirst = w.cursor, w.keyedTurn
	w.keyedTurn = !w.keyedTurn
	return cursor, keyedFirst
}

// advance moves the cursor past the keys a claim that started at old
// took ("" for an unkeyed row), so the next walk starts with the keys that
// waited longest.
func (w *walk) advance(old string, keys []string) {
	var after, wrapped string
	for _, k := range keys {
		if k == "" {
			continue
		}
		if k > old {
			after = max(after, k)
		} else {
			wrapped = max(wrapped, k)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case wrapped != "":
		w.cursor = wrapped
	case after != "":
		w.cursor = after
	}
}

// claimData is what a claim template renders from: the layout, and which
// class of rows comes first.
type claimData struct {
	schema.Layout
	KeyedFirst bool
}
