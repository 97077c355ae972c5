package ingesttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// WaitTimeout bounds every wait of an Inbox: only a hang exceeds it, not
// a busy machine.
const WaitTimeout = 60 * time.Second

// ErrDown is the error of an insert that FailFirst fails: the database is
// down.
var ErrDown = errors.New("the database is down")

// FailFunc decides whether the n-th insert (from 1) fails, and with what.
// It runs before the insert, outside the inbox's lock, so it may block
// (until ctx ends) or read the broker; a nil error lets the insert run.
type FailFunc func(ctx context.Context, n int, row queuebox.ReceivedRow) error

// FailFirst fails the first n inserts with ErrDown.
func FailFirst(n int) FailFunc {
	return func(_ context.Context, i int, _ queuebox.ReceivedRow) error {
		if i <= n {
			return ErrDown
		}
		return nil
	}
}

// Inbox is an in-memory queuebox.InboxStore. Like the unique constraint on
// (source, idempotency_key), it keeps the first row of a key and answers
// every later insert of that key as a duplicate. It fails on demand (Fail,
// Refuse, SetFail), and its waits wake on each insert instead of polling.
// Set Fail and Refuse before the first Insert. The zero value is ready to
// use; it is safe for concurrent use.
type Inbox struct {
	// Fail, when set, fails every insert with it.
	Fail error
	// Refuse, when set, fails the insert of each row it returns an error
	// for.
	Refuse func(queuebox.ReceivedRow) error

	mu      sync.Mutex
	batches []int // the rows of each InsertBatch call
	rows    []queuebox.ReceivedRow
	keys    map[string]bool
	inserts int
	fail    FailFunc
	// changed is closed, and replaced, after each insert: the signal of
	// the waits.
	changed chan struct{}
}

var _ queuebox.InboxBatchStore = (*Inbox)(nil)

// SetFail makes the inserts from now on ask f first; nil clears it.
func (s *Inbox) SetFail(f FailFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = f
}

// Insert stores row unless its source already holds the key. It counts
// every call, failed ones too, and returns row.ID for a new row. The
// FailFunc of SetFail runs first, then Fail and Refuse.
func (s *Inbox) Insert(ctx context.Context, row queuebox.ReceivedRow) (string, bool, error) {
	s.mu.Lock()
	s.inserts++
	n, fail := s.inserts, s.fail
	s.signal() // the call is counted, even while fail holds it
	s.mu.Unlock()
	if fail != nil {
		if err := fail(ctx, n, row); err != nil {
			return "", false, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.signal()
	if s.Fail != nil {
		return "", false, s.Fail
	}
	res := s.store(row)
	return res.ID, res.Inserted, res.Err
}

// InsertBatch stores rows as the real stores do, in one step: each row
// counts as an insert and passes the FailFunc of SetFail first (any
// error fails the whole batch, which then stores nothing), then Fail
// fails the batch, and Refuse fails its row alone. Batches records the
// size of each call.
func (s *Inbox) InsertBatch(ctx context.Context, rows []queuebox.ReceivedRow) ([]queuebox.InsertResult, error) {
	s.mu.Lock()
	first, fail := s.inserts+1, s.fail
	s.inserts += len(rows)
	s.batches = append(s.batches, len(rows))
	s.signal()
	s.mu.Unlock()
	for i, row := range rows {
		if fail == nil {
			break
		}
		if err := fail(ctx, first+i, row); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.signal()
	if s.Fail != nil {
		return nil, s.Fail
	}
	out := make([]queuebox.InsertResult, len(rows))
	for i, row := range rows {
		out[i] = s.store(row)
	}
	return out, nil
}

// store keeps row unless its key is taken; the caller holds s.mu.
func (s *Inbox) store(row queuebox.ReceivedRow) queuebox.InsertResult {
	if s.Refuse != nil {
		if err := s.Refuse(row); err != nil {
			return queuebox.InsertResult{Err: err}
		}
	}
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	k := row.Source + "\x00" + row.IdempotencyKey
	if s.keys[k] {
		return queuebox.InsertResult{}
	}
	s.keys[k] = true
	s.rows = append(s.rows, row)
	return queuebox.InsertResult{ID: row.ID, Inserted: true}
}

// Batches returns the number of rows of each InsertBatch call so far.
func (s *Inbox) Batches() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.batches...)
}

// signal wakes the waits; the caller holds s.mu.
func (s *Inbox) signal() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// Rows returns the stored rows in insert order.
func (s *Inbox) Rows() []queuebox.ReceivedRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]queuebox.ReceivedRow(nil), s.rows...)
}

// Inserts returns the number of Insert calls so far, failed ones and
// duplicates included.
func (s *Inbox) Inserts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inserts
}

// Row returns the row with the idempotency key, and fails the test when
// there is none.
func (s *Inbox) Row(t testing.TB, key string) queuebox.ReceivedRow {
	t.Helper()
	for _, r := range s.Rows() {
		if r.IdempotencyKey == key {
			return r
		}
	}
	t.Fatalf("ingesttest: no row with the key %q", key)
	return queuebox.ReceivedRow{}
}

// WaitRows waits until the inbox holds at least n rows and returns them;
// it fails the test after WaitTimeout.
func (s *Inbox) WaitRows(t testing.TB, n int) []queuebox.ReceivedRow {
	t.Helper()
	s.Wait(t, func(rows []queuebox.ReceivedRow, _ int) bool { return len(rows) >= n }, "%d rows", n)
	return s.Rows()
}

// WaitInserts waits until Insert was called at least n times; it fails
// the test after WaitTimeout.
func (s *Inbox) WaitInserts(t testing.TB, n int) {
	t.Helper()
	s.Wait(t, func(_ []queuebox.ReceivedRow, inserts int) bool { return inserts >= n }, "%d inserts", n)
}

// Wait waits until cond holds for the rows stored and the number of
// Insert calls. cond runs under the inbox's lock: it must not keep rows
// nor call the inbox's methods. Wait checks it again after every insert,
// never on a clock, and fails the test with msg after WaitTimeout.
func (s *Inbox) Wait(t testing.TB, cond func(rows []queuebox.ReceivedRow, inserts int) bool, msg string, args ...any) {
	t.Helper()
	timeout := time.NewTimer(WaitTimeout)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		if cond(s.rows, s.inserts) {
			s.mu.Unlock()
			return
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("ingesttest: waited %s for "+msg, append([]any{WaitTimeout}, args...)...)
		}
	}
}
