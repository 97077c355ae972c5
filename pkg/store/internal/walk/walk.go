// Package walk holds the fairness state of a claim that walks lanes (the
// outbox: key and destination) or aggregates (the relay: the aggregate
// alone) in index order. Both dialects' stores share it: the cursor is a
// property of the claim protocol, not of SQL.
package walk

import "sync"

// Lane is a place in the walk's order: a key and, on the outbox, the
// destination of the key's lane ("" on the relay, whose lanes are its
// aggregates). Lanes order by key, then destination.
type Lane struct {
	Key         string
	Destination string
}

// after says whether l comes after m in the walk's order.
func (l Lane) after(m Lane) bool {
	if l.Key != m.Key {
		return l.Key > m.Key
	}
	return l.Destination > m.Destination
}

// Walk is where the next walk starts, and which class of rows, keyed or
// unkeyed, fills a batch first. Each claim alternates the classes and
// starts after the last lane the previous one took, so under a backlog
// every lane gets its turn and neither class starves the other. The
// cursor decides only the order in which lanes are offered, never whether
// a row may be claimed. The zero value is ready; it is safe for
// concurrent use.
type Walk struct {
	mu        sync.Mutex
	cursor    Lane // the last lane the keyed walk claimed
	keyedTurn bool
}

// Next returns the cursor and whether keyed rows come first for the next
// claim, and flips the class order for the one after.
func (w *Walk) Next() (cursor Lane, keyedFirst bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cursor, keyedFirst = w.cursor, w.keyedTurn
	w.keyedTurn = !w.keyedTurn
	return cursor, keyedFirst
}

// Advance moves the cursor past the lanes a claim that started at old
// took (a lane with an empty key is an unkeyed row and is passed over),
// so the next walk starts with the lanes that waited longest.
func (w *Walk) Advance(old Lane, lanes []Lane) {
	var after, wrapped Lane
	for _, l := range lanes {
		if l.Key == "" {
			continue
		}
		if l.after(old) {
			if l.after(after) {
				after = l
			}
		} else if l.after(wrapped) {
			wrapped = l
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case wrapped.Key != "":
		w.cursor = wrapped
	case after.Key != "":
		w.cursor = after
	}
}

// Pick is Next for a claim rendered twice, once per class order: it
// returns the cursor and the statement of the class that comes first.
func (w *Walk) Pick(keyedFirst, unkeyedFirst string) (cursor Lane, stmt string) {
	cursor, keyed := w.Next()
	if keyed {
		return cursor, keyedFirst
	}
	return cursor, unkeyedFirst
}
