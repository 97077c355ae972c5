package main

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The bench module's tests use the standard library alone, as its other
// tests do, so the module needs no test dependency.

// sizePoints makes one size sample a second over total from size(at).
func sizePoints(total time.Duration, size func(at time.Duration) float64) []point {
	var pts []point
	for at := time.Duration(0); at <= total; at += time.Second {
		pts = append(pts, point{at, size(at)})
	}
	return pts
}

func TestSizeRow(t *testing.T) {
	t.Parallel()
	total := 60 * time.Minute
	t.Run("a table that grows steadily fails", func(t *testing.T) {
		t.Parallel()
		x := sizeRow(sizePoints(total, func(at time.Duration) float64 { return float64(at) }), total, true)
		if x.Result != resultMiss {
			t.Fatalf("got %s, want %s: %s", x.Result, resultMiss, x.Notes)
		}
	})
	t.Run("a table that retention holds level from the middle passes", func(t *testing.T) {
		t.Parallel()
		level := func(at time.Duration) float64 { return float64(min(at, 20*time.Minute)) }
		x := sizeRow(sizePoints(total, level), total, true)
		if x.Result != resultPass {
			t.Fatalf("got %s, want %s: %s", x.Result, resultPass, x.Notes)
		}
	})
	t.Run("without retention the row is information", func(t *testing.T) {
		t.Parallel()
		x := sizeRow(sizePoints(total, func(at time.Duration) float64 { return float64(at) }), total, false)
		if x.Result != resultInfo {
			t.Fatalf("got %s, want %s", x.Result, resultInfo)
		}
	})
	t.Run("no sample fails when judged", func(t *testing.T) {
		t.Parallel()
		if got := sizeRow(nil, total, true).Result; got != resultMiss {
			t.Fatalf("got %s, want %s", got, resultMiss)
		}
	})
}

func TestPartitionLog(t *testing.T) {
	t.Parallel()
	var l partitionLog
	l.observe([]string{"a", "b", "c"})
	l.observe([]string{"a", "b", "c", "d"})
	l.observe([]string{"b", "c", "d", "e"})
	l.observe([]string{"c", "d", "e"})
	if l.made() != 2 || l.dropped() != 2 || l.current != 3 {
		t.Fatalf("made %d, dropped %d, current %d; want 2, 2, 3", l.made(), l.dropped(), l.current)
	}
}

func TestSoakAccount(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		a  soakAccount
		ok bool
	}{
		"every row delivered":            {soakAccount{expected: 10, delivered: 10}, true},
		"a redelivery is a surplus":      {soakAccount{expected: 10, delivered: 11}, true},
		"a dead row is accounted for":    {soakAccount{expected: 10, delivered: 9, dead: 1}, true},
		"a missing row is lost":          {soakAccount{expected: 10, delivered: 9}, false},
		"a row left pending is not done": {soakAccount{expected: 10, delivered: 10, unfinished: 1}, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if c.a.ok() != c.ok || c.a.row().Result != verdict(c.ok) {
				t.Fatalf("ok %v, row %s; want %v", c.a.ok(), c.a.row().Result, c.ok)
			}
		})
	}
}

func TestLockGaveWay(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{"40P01": true, "55P03": true, "42P01": false} {
		err := fmt.Errorf("size of the tables: %w", &pgconn.PgError{Code: code})
		if got := lockGaveWay(err); got != want {
			t.Errorf("%s: got %v, want %v", code, got, want)
		}
	}
	if lockGaveWay(errors.New("connection refused")) {
		t.Error("a plain error is not a lock that gave way")
	}
}
