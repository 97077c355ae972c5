package chaos

import (
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
		{Message{"b", "k", 1}, "r1", at(9)},  // first of b, before a: out of order
		{Message{"a", "k", 0}, "r2", at(11)}, // first of a
		{Message{"b", "k", 1}, "r2", at(12)}, // repeat after the kill of r1, the first sender
		{Message{"c", "k", 2}, "r2", at(30)}, // first of c
		{Message{"c", "k", 2}, "r3", at(40)}, // repeat from the paused r3
		{Message{"a", "k", 0}, "r2", at(50)}, // repeat that no fault explains
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
	l.accept(Delivery{Message{"quick", "k", 0}, "r1", at.Add(time.Second)})
	l.accept(Delivery{Message{"slow", "k", 1}, "r1", at.Add(9 * time.Second)})
	l.accept(Delivery{Message{"quick", "k", 0}, "r2", at.Add(20 * time.Second)})
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
			l.accept(Delivery{m, "r1", t0.Add(time.Duration(i) * time.Second)})
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
