package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// shape is one way to run QueueBox: the role binaries side by side
// (split) or bin/queuebox with every role (single).
type shape struct {
	name  string
	roles []string
}

// singleShapes are the two shapes the single scenario compares. Capture
// is off in both (it runs only with outbox.capture.enabled), so the split
// shape is the three roles that run without it.
var singleShapes = []shape{
	{"split", []string{"ingest", "relay", "deliver"}},
	{"single", []string{singleRole}},
}

// shapeRun is what one load saw on one shape.
type shapeRun struct {
	rate float64 // rows/s (deliver) or req/s (ingest)
	peak int64   // peak connections of the shape's processes
}

// single runs the deliver load (-deliver-rows pending rows, null keys)
// and the ingest load (-clients clients posting unique keys to an HTTP
// source without auth) on both shapes, alternating within each run, and
// reports each shape's median with the peak count of connections the
// shape held on the bench database during the load.
func (b *bench) single(ctx context.Context) error {
	for _, l := range []struct {
		name, unit string
		run        func(*bench, context.Context, shape) (shapeRun, error)
	}{
		{"deliver, null keys, " + group(int64(b.o.deliverRows)) + " rows", "rows/s", (*bench).shapeDeliver},
		{fmt.Sprintf("ingest, no auth, unique keys, %d clients", b.o.clients), "req/s", (*bench).shapeIngest},
	} {
		got := map[string][]shapeRun{}
		for i := range b.o.runs {
			for _, s := range singleShapes {
				r, err := l.run(b, ctx, s)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", s.name, l.name, err)
				}
				got[s.name] = append(got[s.name], r)
				logf("single %s run %d: %s %.0f %s, peak %d connections", l.name, i+1, s.name, r.rate, l.unit, r.peak)
			}
		}
		split, one := got["split"], got["single"]
		x := vsBaseline("single, "+l.name, median(shapeRates(one)), median(shapeRates(split)), l.unit, l.unit, 0.85,
			fmt.Sprintf("baseline: the role binaries; runs %s vs %s; peak connections %s (single) vs %s (split), pool %d each process",
				rates(shapeRates(one)), rates(shapeRates(split)), peaks(one), peaks(split), b.o.pool))
		b.rep.add(x)
	}
	return nil
}

// shapeDeliver drains -deliver-rows pending rows with the shape.
func (b *bench) shapeDeliver(ctx context.Context, s shape) (shapeRun, error) {
	rows := b.o.deliverRows
	db, err := b.srv.create(ctx, "single", 4)
	if err != nil {
		return shapeRun{}, err
	}
	defer db.drop()
	if err := db.insertOutbox(ctx, rows, 0); err != nil {
		return shapeRun{}, err
	}
	b.rc.reset()
	procs, err := b.startShape(ctx, s, merge(db.env(b.o.pool), b.rc.destinationEnv(b.o), ingestEnv()))
	if err != nil {
		return shapeRun{}, err
	}
	peak := watchConnections(ctx, db)
	waitErr := b.waitDelivered(ctx, db, int64(rows), procs)
	top := peak()
	if err := errors.Join(waitErr, stopAll(procs...)); err != nil {
		return shapeRun{}, err
	}
	w, err := db.outboxWindow(ctx, time.Time{})
	if err != nil {
		return shapeRun{}, err
	}
	return shapeRun{rate: w.rate(), peak: top}, nil
}

// shapeIngest posts unique keys to the shape's ingest for -ingest-time
// after a warm-up of -ingest-warmup.
func (b *bench) shapeIngest(ctx context.Context, s shape) (shapeRun, error) {
	db, err := b.srv.create(ctx, "single", 4)
	if err != nil {
		return shapeRun{}, err
	}
	defer db.drop()
	procs, err := b.startShape(ctx, s, merge(db.env(b.o.pool), b.rc.destinationEnv(b.o), ingestEnv()))
	if err != nil {
		return shapeRun{}, err
	}
	pp := newPoster(b.o.httpStdlib, fmt.Sprintf("127.0.0.1:%d", procs[0].port), b.o.clients)
	defer pp.close()
	peak := watchConnections(ctx, db)
	l := load{clients: b.o.clients, warmup: b.o.ingestWarmup, measure: b.o.ingestTime}
	prefix := "single-" + s.name + "-"
	res := l.run(ctx, func(ctx context.Context, client int, key int64) error {
		return pp.post(ctx, client, "/inbox/bench", prefix, key, false)
	})
	top := peak()
	if err := errors.Join(res.check(s.name+" ingest"), stopAll(procs...)); err != nil {
		return shapeRun{}, err
	}
	return shapeRun{rate: res.Rate, peak: top}, nil
}

// startShape starts the shape's processes with env, ingest first so that
// procs[0] serves the inbox.
func (b *bench) startShape(ctx context.Context, s shape, env map[string]string) ([]*proc, error) {
	var procs []*proc
	for _, role := range s.roles {
		p, err := startBinary(ctx, b.o.binDir, role, env)
		if err != nil {
			return nil, errors.Join(err, stopAll(procs...))
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// watchConnections samples the connections on db every 50 ms, less the
// bench's own pool, until the returned function is called; that function
// stops the sampling and returns the peak.
func watchConnections(ctx context.Context, db *benchDB) func() int64 {
	var top atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			var n int64
			err := db.Store.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, db.Name).Scan(&n)
			if err == nil {
				n -= int64(db.Store.Pool.Stat().TotalConns())
				if n > top.Load() {
					top.Store(n)
				}
			}
			_ = sleepCtx(ctx, 50*time.Millisecond)
		}
	}()
	return func() int64 {
		cancel()
		wg.Wait()
		return top.Load()
	}
}

func shapeRates(rs []shapeRun) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.rate
	}
	return out
}

// peaks formats the highest peak of connections over the runs.
func peaks(rs []shapeRun) string {
	var top int64
	for _, r := range rs {
		top = max(top, r.peak)
	}
	return fmt.Sprint(top)
}
