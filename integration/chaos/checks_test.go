package chaos

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestLedgerCheck feeds the ledger deliveries and faults and reads the
// counts: a loss, a first delivery out of key order, and which repeats a
// fault explains.
func TestLedgerCheck(t *testing.T) {
	t0 := time.Now()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	l := NewLedger(0, NewRand(1))
	for _, m := range []Message{{"a", "k", 0}, {"b", "k", 1}, {"c", "k", 2}, {"lost", "k", 3}} {
		l.Produced(m)
	}
	l.faults = []Fault{{Kind: "kill", Target: "r1", At: at(10), End: at(10)}, {Kind: "pause", Target: "r3", At: at(20), End: at(25)}}
	for _, d := range []Delivery{
		{Message: Message{"b", "k", 1}, Replica: "r1", At: at(9)},  // first of b, before a: out of order
		{Message: Message{"a", "k", 0}, Replica: "r2", At: at(11)}, // first of a
		{Message: Message{"b", "k", 1}, Replica: "r2", At: at(12)}, // repeat after the kill of r1, the first sender
		{Message: Message{"c", "k", 2}, Replica: "r2", At: at(30)}, // first of c
		{Message: Message{"c", "k", 2}, Replica: "r3", At: at(40)}, // repeat from the paused r3
		{Message: Message{"a", "k", 0}, Replica: "r2", At: at(50)}, // repeat that no fault explains
	} {
		l.accept(d)
	}
	var r Result
	l.Check(&r, 3*time.Second)
	want := Result{Messages: 4, Lost: 1, OutOfOrder: 1, Duplicates: 3, Unexplained: 1}
	if r.Messages != want.Messages || r.Lost != want.Lost || r.OutOfOrder != want.OutOfOrder ||
		r.Duplicates != want.Duplicates || r.Unexplained != want.Unexplained {
		t.Fatalf("got %+v, want the counts of %+v", r, want)
	}
	if r.DuplicatesAfter["kill"] != 1 || r.DuplicatesAfter["pause"] != 1 {
		t.Fatalf("duplicates by fault: %v", r.DuplicatesAfter)
	}
	if got := r.Failed(); len(got) != 3 {
		t.Fatalf("failed guarantees: %v", got)
	}
}

// TestLedgerLate counts a first delivery later than the bound, not a
// quick one, and ignores repeats and lost messages.
func TestLedgerLate(t *testing.T) {
	l := NewLedger(0, NewRand(1))
	for _, m := range []Message{{"quick", "k", 0}, {"slow", "k", 1}, {"lost", "k", 2}} {
		l.Produced(m)
	}
	at := l.producedAt["quick"]
	l.producedAt["slow"] = at
	l.accept(Delivery{Message: Message{"quick", "k", 0}, Replica: "r1", At: at.Add(time.Second)})
	l.accept(Delivery{Message: Message{"slow", "k", 1}, Replica: "r1", At: at.Add(9 * time.Second)})
	l.accept(Delivery{Message: Message{"quick", "k", 0}, Replica: "r2", At: at.Add(20 * time.Second)})
	late, worst := l.Late(5 * time.Second)
	if late != 1 || worst != 9*time.Second {
		t.Fatalf("late %d, worst %v; want 1 and 9s", late, worst)
	}
}

// TestLedgerRankBy judges the order of first deliveries against the order
// an inbox stored them: deliveries that follow a broker's reordering pass,
// and a delivery out of the inbox's order still counts.
func TestLedgerRankBy(t *testing.T) {
	t0 := time.Now()
	deliver := func(ns ...int) *Ledger {
		l := NewLedger(0, NewRand(1))
		for i, n := range ns {
			m := Message{ID: string(rune('a' + n)), Key: "k", N: n}
			l.Produced(m)
			l.accept(Delivery{Message: m, Replica: "r1", At: t0.Add(time.Duration(i) * time.Second)})
		}
		return l
	}
	// The broker handed 0, 2, 1 to the inbox.
	stored := map[string]map[int]int{"k": {0: 1, 2: 2, 1: 3}}
	for _, c := range []struct {
		name   string
		order  []int
		ranked bool
		want   int
	}{
		{"produced order, unranked", []int{0, 1, 2}, false, 0},
		{"inbox order, unranked", []int{0, 2, 1}, false, 1},
		{"inbox order, ranked", []int{0, 2, 1}, true, 0},
		{"produced order, ranked: out of the inbox's order", []int{0, 1, 2}, true, 1},
	} {
		l := deliver(c.order...)
		if c.ranked {
			l.RankBy(stored)
		}
		var r Result
		l.Check(&r, time.Second)
		if r.OutOfOrder != c.want {
			t.Errorf("%s: %d out of order, want %d", c.name, r.OutOfOrder, c.want)
		}
	}
}

// TestLedgerCheckFanout judges a fan-out: a message counts as lost at
// each destination it did not reach, order holds per lane (key and
// destination), not across the destinations of a key, and with
// RepeatsInPlace a repeat is in order only directly after itself.
func TestLedgerCheckFanout(t *testing.T) {
	t0 := time.Now()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	l := NewLedger(0, NewRand(1))
	l.Fanout(Fanout{Destinations: []string{"a", "b"}})
	l.RepeatsInPlace()
	for _, m := range []Message{{"m0", "k", 0}, {"m1", "k", 1}, {"m2", "k", 2}, {"m3", "j", 3}} {
		l.Produced(m)
	}
	l.faults = []Fault{{Kind: "kill", Target: "r1", At: at(10), End: at(10)}}
	for _, d := range []Delivery{
		{Message: Message{"m0", "k", 0}, Replica: "r1", Dest: "a", At: at(1)},
		{Message: Message{"m1", "k", 1}, Replica: "r1", Dest: "a", At: at(2)},
		{Message: Message{"m2", "k", 2}, Replica: "r1", Dest: "a", At: at(3)},
		// b's lane of k is behind a's: in order.
		{Message: Message{"m0", "k", 0}, Replica: "r1", Dest: "b", At: at(4)},
		{Message: Message{"m1", "k", 1}, Replica: "r1", Dest: "b", At: at(9)},
		// The kill of r1 left m1 unfinished at b: its repeat comes
		// directly after itself, in order.
		{Message: Message{"m1", "k", 1}, Replica: "r2", Dest: "b", At: at(13)},
		{Message: Message{"m2", "k", 2}, Replica: "r2", Dest: "b", At: at(14)},
		// A repeat of m0 at a after m2 was sent there: out of its lane's
		// order, though a fault explains the duplicate.
		{Message: Message{"m0", "k", 0}, Replica: "r2", Dest: "a", At: at(15)},
		// m3 reached a only: lost at b.
		{Message: Message{"m3", "j", 3}, Replica: "r2", Dest: "a", At: at(16)},
	} {
		l.accept(d)
	}
	var r Result
	l.Check(&r, 3*time.Second)
	want := Result{Messages: 4, Destinations: 2, Lost: 1, OutOfOrder: 1, Duplicates: 2, Unexplained: 0}
	if r.Messages != want.Messages || r.Destinations != want.Destinations || r.Lost != want.Lost ||
		r.OutOfOrder != want.OutOfOrder || r.Duplicates != want.Duplicates || r.Unexplained != want.Unexplained {
		t.Fatalf("got %+v, want the counts of %+v", r, want)
	}
	if r.DuplicatesAfter["kill"] != 2 {
		t.Fatalf("duplicates by fault: %v", r.DuplicatesAfter)
	}
	if got := r.DuplicateShare(); got != 0.25 {
		t.Fatalf("duplicate share %v, want 2 of 8 deliveries", got)
	}
	if l.AllDelivered() {
		t.Fatal("m3 never reached b, yet every message counts as delivered")
	}
}

// TestLedgerRepeatsOnlyInPlace: without RepeatsInPlace a late repeat is
// a duplicate but not out of order (a paused replica may send one); with
// it, the same deliveries count one out of order.
func TestLedgerRepeatsOnlyInPlace(t *testing.T) {
	t0 := time.Now()
	for _, inPlace := range []bool{false, true} {
		l := NewLedger(0, NewRand(1))
		if inPlace {
			l.RepeatsInPlace()
		}
		for i, n := range []int{0, 1, 1, 2, 1} {
			m := Message{ID: string(rune('a' + n)), Key: "k", N: n}
			l.Produced(m)
			l.accept(Delivery{Message: m, Replica: "r1", At: t0.Add(time.Duration(i) * time.Second)})
		}
		var r Result
		l.Check(&r, time.Second)
		want := 0
		if inPlace {
			want = 1
		}
		if r.OutOfOrder != want || r.Duplicates != 2 {
			t.Errorf("repeats in place %v: %d out of order and %d duplicates, want %d and 2", inPlace, r.OutOfOrder, r.Duplicates, want)
		}
	}
}

// TestLedgerReceiverNamesDestination: the receiver reads the replica and
// the destination from the path, fails the share of requests set for a
// destination, and keeps the X-Message-Id of each delivery.
func TestLedgerReceiverNamesDestination(t *testing.T) {
	l := NewLedger(0, NewRand(1))
	l.Fanout(Fanout{Destinations: []string{"up", "down"}, FailRates: map[string]float64{"down": 1}})
	written := map[string]string{"m1": "row-1"}
	l.Produced(Message{"m1", "k", 0})
	for path, wantStatus := range map[string]int{"/r/deliver1/up": http.StatusOK, "/r/deliver2/down": http.StatusInternalServerError} {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"id":"m1","k":"k","n":0}`))
		req.Header.Set("X-Message-Id", "row-1")
		rec := httptest.NewRecorder()
		l.serve(rec, req)
		if rec.Code != wantStatus {
			t.Errorf("%s answered %d, want %d", path, rec.Code, wantStatus)
		}
	}
	d, ok := l.first[copyKey{"m1", "up"}]
	if !ok || d.Replica != "deliver1" || d.MessageID != "row-1" {
		t.Fatalf("delivery to up: %+v (recorded %v)", d, ok)
	}
	if _, ok := l.first[copyKey{"m1", "down"}]; ok {
		t.Fatal("a request answered 500 counts as delivered")
	}
	var r Result
	l.CheckMessageIDs(written, &r)
	if r.WrongMessageID != 0 {
		t.Fatalf("%d deliveries with another message id, want 0", r.WrongMessageID)
	}
	l.CheckMessageIDs(map[string]string{"m1": "row-2"}, &r)
	if r.WrongMessageID != 1 {
		t.Fatalf("%d deliveries with another message id, want 1", r.WrongMessageID)
	}
}

// TestLedgerBoundsFailuresInARow: a destination that fails every request
// fails one message at most MaxFailuresInARow times in a row, then
// accepts it; the count starts again for the next message.
func TestLedgerBoundsFailuresInARow(t *testing.T) {
	l := NewLedger(0, NewRand(1))
	l.Fanout(Fanout{Destinations: []string{"down"}, FailRates: map[string]float64{"down": 1}, MaxFailuresInARow: 2})
	for _, id := range []string{"m1", "m2"} {
		d := Delivery{Message: Message{id, "k", 0}, Replica: "r1", Dest: "down"}
		got := []bool{l.accept(d), l.accept(d), l.accept(d)}
		if got[0] || got[1] || !got[2] {
			t.Fatalf("%s: answers %v, want two refusals, then the delivery", id, got)
		}
	}
	if want := "down answered 500 to 4 of 6 requests"; l.Answers() != want {
		t.Fatalf("answers %q, want %q", l.Answers(), want)
	}
}
