// Package walk holds the fairness state of a claim that walks keys (the
// outbox) or aggregates (the relay) in index order. Both dialects' stores
// share it: the cursor is a property of the claim protocol, not of SQL.
package walk

import "sync"

// Walk is where the next walk starts, and which class of rows, keyed or
// unkeyed, fills a batch first. Each claim alternates the classes and
// starts after the last key the previous one took, so under a backlog
// every key gets its turn and neither class starves the other. The
// cursor decides only the order in which keys are offered, never whether
// a row may be claimed. The zero value is ready; it is safe for
// concurrent use.
type Walk struct {
	mu        sync.Mutex
	cursor    string // the last key the keyed walk claimed
	keyedTurn bool
}

// Next returns the cursor and whether keyed rows come first for the next
// claim, and flips the class order for the one after.
func (w *Walk) Next() (cursor string, keyedFirst bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cursor, keyedFirst = w.cursor, w.keyedTurn
	w.keyedTurn = !w.keyedTurn
	return cursor, keyedFirst
}

// Advance moves the cursor past the keys a claim that started at old
// took ("" for an unkeyed row), so the next walk starts with the keys that
// waited longest.
func (w *Walk) Advance(old string, keys []string) {
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

// Pick is Next for a claim rendered twice, once per class order: it
// returns the cursor and the statement of the class that comes first.
func (w *Walk) Pick(keyedFirst, unkeyedFirst string) (cursor, stmt string) {
	cursor, keyed := w.Next()
	if keyed {
		return cursor, keyedFirst
	}
	return cursor, unkeyedFirst
}
