package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// relayShare is the share of the hand-written relay, with its partial
// index and at the better of 1 and 2 processes, that queuebox-deliver
// must reach (issue 42).
const relayShare = 0.80

// relayIndex is the partial index the hand-written relay's query needs,
// which QueueBox's migrations do not create: the bench adds it for the
// relay's drains alone and drops it after (the database goes too).
const (
	relayIndex     = `CREATE INDEX qbbench_relay_pending ON outbox (sequence) WHERE state = 'pending'`
	relayIndexDrop = `DROP INDEX qbbench_relay_pending`
)

// handRelayRuns holds the hand-written relay's drains of one key variant,
// by index (with, without) and by processes (1, 2).
type handRelayRuns struct {
	withIndex, noIndex [2][]drain
}

// handRelayRound adds one drain of each relay setup, on a fresh database
// each, to hr: with the index at 1 and 2 processes, then without it.
func (b *bench) handRelayRound(ctx context.Context, keys, run int, hr *handRelayRuns) error {
	for _, index := range []bool{true, false} {
		for procs := 1; procs <= 2; procs++ {
			d, err := b.handRelayDrain(ctx, b.o.deliverRows, keys, procs, index)
			if err != nil {
				return fmt.Errorf("hand-written relay, %d processes, index %v: %w", procs, index, err)
			}
			set := &hr.withIndex
			if !index {
				set = &hr.noIndex
			}
			set[procs-1] = append(set[procs-1], d)
			logf("deliver %s run %d: hand-written relay, %d processes, index %v: %.0f rows/s, CPU %v/row, PostgreSQL %v/row",
				keyLabel(keys), run+1, procs, index, d.Rate, d.CPUPerRow, d.DBCPUPerRow)
		}
	}
	return nil
}

// best returns the drains of the faster process count (by median rate)
// and that count.
func best(set [2][]drain) ([]drain, int) {
	if median(drainRates(set[1])) > median(drainRates(set[0])) {
		return set[1], 2
	}
	return set[0], 1
}

// addRelayRows adds the judged row (deliver vs the relay with its index)
// and the INFO row beside it (vs the relay without it) for one key
// variant; real are queuebox-deliver's drains of the same runs.
func (b *bench) addRelayRows(keys int, real []drain, hr handRelayRuns) {
	got := median(drainRates(real))
	for _, index := range []bool{true, false} {
		set, name := hr.withIndex, "deliver vs hand-written relay, "+keyLabel(keys)
		if !index {
			set, name = hr.noIndex, "deliver vs hand-written relay without its index, "+keyLabel(keys)
		}
		base, procs := best(set)
		x := vsBaseline(name, got, median(drainRates(base)), "rows/s", "rows/s", relayShare,
			fmt.Sprintf("%s rows; relay at %d process(es) (runs 1: %s; 2: %s), deliver runs %s; %s; %s",
				group(int64(b.o.deliverRows)), procs, rates(drainRates(set[0])), rates(drainRates(set[1])),
				rates(drainRates(real)), b.cpuNote("deliver", real), relayCPUNote(b, real, base)))
		if !index {
			x = info(x)
		}
		b.rep.add(x)
	}
}

// relayCPUNote formats the relay's CPU per row (its processes summed),
// PostgreSQL's under each side, and the cores bound of both sides.
func relayCPUNote(b *bench, real, relay []drain) string {
	cpu := func(d drain) time.Duration { return d.CPUPerRow }
	load := func(d drain) time.Duration { return d.LoadCPUPerRow }
	db := func(d drain) time.Duration { return d.DBCPUPerRow }
	rate := median(drainRates(relay))
	rows := b.o.deliverRows
	note := fmt.Sprintf("relay CPU %.0f µs/row (%s receiver %.0f); PostgreSQL %.0f µs/row under deliver, %.0f under the relay",
		medianUS(relay, cpu), b.loadSide(), medianUS(relay, load), medianUS(real, db), medianUS(relay, db))
	note += fmt.Sprintf("; per 100 rows, deliver %s, relay %s", medianWork(real).per100(rows), medianWork(relay).per100(rows))
	note += coresBound("deliver, receiver and PostgreSQL", medianUS(real, cpu)+medianUS(real, load)+medianUS(real, db), "rows/s", rate)
	return note + coresBound("relay, receiver and PostgreSQL", medianUS(relay, cpu)+medianUS(relay, load)+medianUS(relay, db), "rows/s", rate)
}

// handRelayDrain pre-inserts rows pending rows as deliverDrain does,
// adds the relay's index when asked, starts procs hand-written relays
// against the receiver and waits until every row is sent. The rate runs
// from the first request the receiver got to the last row's update (the
// relay writes no claim time; its first request follows its first SELECT
// by well under a millisecond).
func (b *bench) handRelayDrain(ctx context.Context, rows, keys, procs int, index bool) (drain, error) {
	db, err := b.srv.create(ctx, "handrelay", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	if err := db.insertOutbox(ctx, rows, keys); err != nil {
		return drain{}, err
	}
	if index {
		if err := db.exec(ctx, relayIndex); err != nil {
			return drain{}, fmt.Errorf("create the relay's index: %w", err)
		}
		if err := db.vacuumAnalyze(ctx, "outbox"); err != nil {
			return drain{}, err
		}
	}
	cost, err := b.measureDrain(ctx, db, rows, func() ([]*proc, error) {
		ps := make([]*proc, 0, procs)
		for range procs {
			p, err := startHand(ctx, "handrelay", 0, "-db", db.URL, "-url", b.rc.URL+"/webhook",
				"-workers", itoa(b.o.concurrency), "-batch", itoa(b.o.batchSize), "-poll", fmt.Sprintf("%dms", b.o.pollMs))
			if err != nil {
				return nil, errors.Join(err, stopAll(ps...))
			}
			ps = append(ps, p)
		}
		return ps, nil
	})
	if err != nil {
		return drain{}, err
	}
	w := window{First: time.Unix(0, b.rc.first.Load())}
	err = db.Store.Pool.QueryRow(ctx, `SELECT count(*), coalesce(max(updated_at), now()) FROM outbox WHERE state = 'sent'`).
		Scan(&w.Rows, &w.Last)
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(rows) {
		return drain{}, fmt.Errorf("%d of %d rows sent", w.Rows, rows)
	}
	if index {
		if err := db.exec(ctx, relayIndexDrop); err != nil {
			return drain{}, fmt.Errorf("drop the relay's index: %w", err)
		}
	}
	return cost.drain(w.rate(), rows), nil
}

// medianWork is the median of each count of PostgreSQL's work over ds.
func medianWork(ds []drain) pgWork {
	f := func(g func(pgWork) int64) int64 {
		v := make([]float64, len(ds))
		for i, d := range ds {
			v[i] = float64(g(d.Work))
		}
		return int64(median(v) + 0.5)
	}
	return pgWork{
		commits: f(func(w pgWork) int64 { return w.commits }),
		updates: f(func(w pgWork) int64 { return w.updates }),
		hot:     f(func(w pgWork) int64 { return w.hot }),
	}
}
