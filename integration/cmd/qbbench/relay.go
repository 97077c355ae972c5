package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// relay measures queuebox-relay forwarding -relay-rows pending push rows,
// their aggregates spread over -aggregates ids, into the outbox. The rate
// runs from the first claim to the last forward, read from claimed_at and
// processed_at.
func (b *bench) relay(ctx context.Context) error {
	var ds []drain
	for i := range b.o.runs {
		d, err := b.relayDrain(ctx, b.o.explain && i == 0)
		if err != nil {
			return err
		}
		ds = append(ds, d)
		logf("relay run %d: %.0f rows/s, CPU %v/row", i+1, d.Rate, d.CPUPerRow)
	}
	got := drainRates(ds)
	b.rep.add(atLeast(fmt.Sprintf("relay, %s push rows, %s aggregates", group(int64(b.o.relayRows)), group(int64(b.o.aggregates))),
		median(got), "rows/s", 5000, fmt.Sprintf("runs %s; %s", rates(got), b.cpuNote("relay", ds))))
	return nil
}

func (b *bench) relayDrain(ctx context.Context, explain bool) (drain, error) {
	db, err := b.srv.create(ctx, "relay", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	if err := db.insertInbox(ctx, "bench", b.o.relayRows, b.o.aggregates); err != nil {
		return drain{}, err
	}
	if explain {
		title := fmt.Sprintf("inbox_relay_claim, %s pending push rows, %s aggregates",
			group(int64(b.o.relayRows)), group(int64(b.o.aggregates)))
		if err := b.explain(ctx, db, title, "inbox_relay_claim", db.Layout, b.o.batchSize,
			leaseForBench.Milliseconds(), []string{"bench"}, nil); err != nil {
			return drain{}, err
		}
	}
	env := merge(db.env(b.o.pool), ingestEnv(), map[string]string{
		"QUEUEBOX_INBOX_RELAY_BATCHSIZE":      itoa(b.o.batchSize),
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS": itoa(b.o.pollMs),
	})
	p, err := startBinary(ctx, b.o.binDir, "relay", env)
	if err != nil {
		return drain{}, err
	}
	waitErr := b.waitRelayed(ctx, db, p)
	cpu := p.cpuTime()
	if err := errors.Join(waitErr, p.stop()); err != nil {
		return drain{}, err
	}
	var w window
	var first, last *time.Time
	var outbox int64
	err = db.Store.Pool.QueryRow(ctx, `
		SELECT count(*), min(claimed_at), max(processed_at), (SELECT count(*) FROM outbox)
		FROM inbox WHERE state = 'processed'`).Scan(&w.Rows, &first, &last, &outbox)
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(b.o.relayRows) || outbox != w.Rows || first == nil || last == nil {
		return drain{}, fmt.Errorf("%d of %d inbox rows processed, %d outbox rows", w.Rows, b.o.relayRows, outbox)
	}
	w.First, w.Last = *first, *last
	return drain{Rate: w.rate(), CPUPerRow: cpu / time.Duration(w.Rows)}, nil
}

// waitRelayed polls until no push row is pending or processing.
func (b *bench) waitRelayed(ctx context.Context, db *benchDB, p *proc) error {
	deadline := time.Now().Add(b.o.drainTimeout)
	for {
		if err := p.exited(); err != nil {
			return err
		}
		var n int64
		err := db.Store.Pool.QueryRow(ctx,
			`SELECT count(*) FROM inbox WHERE state IN ('pending', 'processing')`).Scan(&n)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d inbox rows still pending or processing after %v", n, b.o.relayRows, b.o.drainTimeout)
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
