package chaos

import (
	"context"
	"testing"
	"time"
)

// Check fills the ledger's part of a result: lost messages (per
// destination), deliveries out of lane order, and every duplicate paired
// with the fault it follows (see cause).
func (l *Ledger) Check(r *Result, lease time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Messages = len(l.produced)
	if len(l.dests) > 1 {
		r.Destinations = len(l.dests)
	}
	r.Faults = map[string]int{}
	for _, f := range l.faults {
		r.Faults[f.Kind]++
	}
	for id := range l.produced {
		for _, dest := range l.dests {
			if _, ok := l.first[copyKey{id, dest}]; !ok {
				r.Lost++
			}
		}
	}
	if l.repeatsInPlace {
		for ln, ns := range l.sent {
			r.OutOfOrder += l.outOfOrder(ln.Key, ns, true)
		}
	} else {
		for ln, ns := range l.order {
			r.OutOfOrder += l.outOfOrder(ln.Key, ns, false)
		}
	}
	r.DuplicatesAfter = map[string]int{}
	for _, d := range l.repeats {
		r.Duplicates++
		first := l.first[copyKey{d.ID, d.Dest}]
		if f, ok := l.cause(first, d, lease); ok {
			r.DuplicatesAfter[f.Kind]++
		} else {
			r.Unexplained++
			l.unexplained = append(l.unexplained, [2]Delivery{first, d})
		}
	}
}

// outOfOrder counts the deliveries of one lane, ns in their order, that
// came after a delivery of a later message of key (by the broker's rank
// where RankBy set one). With skipRepeats, a delivery of the same message
// as the one directly before it is not judged: the repeat of the row
// that a fault left unfinished.
func (l *Ledger) outOfOrder(key string, ns []int, skipRepeats bool) int {
	out, highest, prev := 0, -1, -1
	for i, n := range ns {
		if skipRepeats && i > 0 && n == prev {
			continue
		}
		prev = n
		if ranked, ok := l.rank[key][n]; ok {
			n = ranked
		}
		if n < highest {
			out++
		}
		highest = max(highest, n)
	}
	return out
}

// CheckMessageIDs counts in r the 2xx deliveries whose X-Message-Id is
// not the id of the row the application wrote for their message; written
// maps each message's ledger id to that row's id. Every destination of a
// fan-out must receive the written row's id, whichever row carried it.
func (l *Ledger) CheckMessageIDs(written map[string]string, r *Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.first {
		if d.MessageID != written[d.ID] {
			r.WrongMessageID++
		}
	}
	for _, d := range l.repeats {
		if d.MessageID != written[d.ID] {
			r.WrongMessageID++
		}
	}
}

// cause returns the latest fault that explains the repeat d of first:
//   - a fault that hit the sender of the first copy (or every process),
//     began before the repeat and lasted until a lease before the first
//     copy or later: it can leave a delivered row unmarked, and the row's
//     next owner sends it again;
//   - a fault that hit the sender of the repeat before it: a paused
//     replica, once continued, finishes the publish it had started under
//     a claim that expired meanwhile (the claim fence only stops its
//     write to the database).
func (l *Ledger) cause(first, d Delivery, lease time.Duration) (Fault, bool) {
	for i := len(l.faults) - 1; i >= 0; i-- {
		f := l.faults[i]
		if f.At.After(d.At) {
			continue
		}
		afterFirst := (f.Target == "" || f.Target == first.Replica) && !f.End.Before(first.At.Add(-lease))
		if afterFirst || f.Target == d.Replica {
			return f, true
		}
	}
	return Fault{}, false
}

// CheckInbox fills the inbox part of a result from the database: every
// accepted idempotency key of source has exactly one inbox row, and every
// processed inbox row has exactly one outbox row.
func CheckInbox(t testing.TB, db *Database, source string, accepted []string, r *Result) {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT idempotency_key, count(*) FROM inbox WHERE source = $1 GROUP BY 1`, source)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			t.Fatal(err)
		}
		stored[key] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, key := range accepted {
		if stored[key] != 1 {
			r.InboxNotOne++
		}
	}
	r.OutboxNotOne += db.Count(t, `SELECT count(*) FROM (
		SELECT i.id FROM inbox i LEFT JOIN outbox o ON o.headers->>'x-inbox-id' = i.id::text
		WHERE i.source = $1 AND i.state = 'processed' GROUP BY i.id HAVING count(o.id) <> 1) x`, source)
}

// WrittenIDs maps the ledger id of every message to the id of the outbox
// row the application wrote for it (the rows QueueBox adds for a fan-out
// have an origin_id and are left out).
func WrittenIDs(t testing.TB, db *Database) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := db.Pool.Query(ctx, `SELECT payload->>'id', id::text FROM outbox WHERE origin_id IS NULL`)
	if err != nil {
		t.Fatalf("read the written outbox rows: %v", err)
	}
	defer rows.Close()
	ids := map[string]string{}
	for rows.Next() {
		var message, id string
		if err := rows.Scan(&message, &id); err != nil {
			t.Fatalf("read the written outbox rows: %v", err)
		}
		ids[message] = id
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read the written outbox rows: %v", err)
	}
	return ids
}

// Late counts the first deliveries (one per message and destination) that
// came more than bound after their message was produced, and returns the
// longest such wait of all.
func (l *Ledger) Late(bound time.Duration) (late int, worst time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, at := range l.producedAt {
		for _, dest := range l.dests {
			d, ok := l.first[copyKey{id, dest}]
			if !ok {
				continue // lost, counted as such
			}
			wait := d.At.Sub(at)
			worst = max(worst, wait)
			if wait > bound {
				late++
			}
		}
	}
	return late, worst
}

// StoredOutOfOrder counts the inbox rows of source stored (by created_at,
// the relay's order) before a row of their aggregate with a lower n: it
// tells whether a broker hop or a later one broke the order of a key.
func StoredOutOfOrder(t testing.TB, db *Database, source string) int {
	t.Helper()
	return db.Count(t, `SELECT count(*) FROM (
		SELECT (payload->>'n')::int AS n, max((payload->>'n')::int) OVER (PARTITION BY aggregate_id
			ORDER BY created_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS highest
		FROM inbox WHERE source = $1) x WHERE n < highest`, source)
}

// RankBy makes Check judge the order of first deliveries against rank (per
// key, each n's place) instead of the order the messages were produced in.
// A scenario whose messages cross a broker into an inbox ranks them by the
// order that inbox stored them: the order a broker hands messages over
// after a redelivery is the broker's (JetStream returns an unacknowledged
// message only after ackWait, behind later ones), and QueueBox's promise
// of per-key order starts at the inbox (06_Ordering). How often the broker
// reordered is reported on its own, as BrokerReordered.
func (l *Ledger) RankBy(rank map[string]map[int]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rank = rank
}

// InboxRank returns, per aggregate, the place of each message n among the
// inbox rows of source in the relay's order (created_at, then id).
func InboxRank(t testing.TB, db *Database, source string) map[string]map[int]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := db.Pool.Query(ctx, `SELECT aggregate_id, (payload->>'n')::int,
		row_number() OVER (PARTITION BY aggregate_id ORDER BY created_at, id)::int
		FROM inbox WHERE source = $1`, source)
	if err != nil {
		t.Fatalf("rank the inbox rows of %s: %v", source, err)
	}
	defer rows.Close()
	rank := map[string]map[int]int{}
	for rows.Next() {
		var key string
		var n, place int
		if err := rows.Scan(&key, &n, &place); err != nil {
			t.Fatalf("rank the inbox rows of %s: %v", source, err)
		}
		if rank[key] == nil {
			rank[key] = map[int]int{}
		}
		rank[key][n] = place
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rank the inbox rows of %s: %v", source, err)
	}
	return rank
}
