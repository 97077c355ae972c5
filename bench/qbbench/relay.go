package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// relay measures queuebox-relay forwarding -relay-rows pending push rows,
// their aggregates spread over -aggregates ids, into the outbox. The rate
// runs from the first claim to the last forward, read from claimed_at and
// processed_at.
func (b *bench) relay(ctx context.Context) error {
	fill := func(ctx context.Context, db *benchDB) error {
		return db.insertInbox(ctx, "bench", b.o.relayRows, b.o.aggregates)
	}
	label := fmt.Sprintf("relay, %s push rows, %s aggregates", group(int64(b.o.relayRows)), group(int64(b.o.aggregates)))
	return b.relayRates(ctx, label, b.o.relayRows, fill)
}

// relayBacklog measures the relay on a backlog as an outage leaves it:
// -backlog-rows push rows whose aggregates arrive in runs (each
// aggregate's rows together), inserted into an inbox analyzed while empty,
// so the claim runs on statistics that predate the backlog. Once over 200
// aggregates and once over 10,000: the drain rate of queuebox-relay, and
// the p50 and p99 of one Claim(-batch) in-process at that backlog.
func (b *bench) relayBacklog(ctx context.Context) error {
	for _, aggs := range []int{200, 10_000} {
		fill := func(ctx context.Context, db *benchDB) error {
			return db.insertInboxRuns(ctx, "bench", b.o.backlogRows, aggs)
		}
		what := fmt.Sprintf("%s-row backlog in runs, %s aggregates", group(int64(b.o.backlogRows)), group(int64(aggs)))
		if err := b.relayRates(ctx, "relay, "+what, b.o.backlogRows, fill); err != nil {
			return err
		}
		p50, p99, err := b.relayClaimLatency(ctx, fill)
		if err != nil {
			return fmt.Errorf("relay claim latency, %s: %w", what, err)
		}
		logf("relay claim, %s: p50 %.1f ms, p99 %.1f ms", what, ms(p50), ms(p99))
		b.rep.add(below(fmt.Sprintf("relay claim(%d) p50, %s", b.o.batchSize, what), ms(p50), 20,
			fmt.Sprintf("p99 %.1f ms over %d calls", ms(p99), b.o.claimCalls)))
	}
	return nil
}

// relayRates runs -runs drains of a database that fill prepares and adds
// their median to the report.
func (b *bench) relayRates(ctx context.Context, label string, rows int, fill func(context.Context, *benchDB) error) error {
	var ds []drain
	for i := range b.o.runs {
		d, err := b.relayDrain(ctx, rows, fill, b.o.explain && i == 0)
		if err != nil {
			return err
		}
		ds = append(ds, d)
		logf("%s, run %d: %.0f rows/s, CPU %v/row", label, i+1, d.Rate, d.CPUPerRow)
	}
	got := drainRates(ds)
	b.rep.add(atLeast(label, median(got), "rows/s", 5000, fmt.Sprintf("runs %s; %s", rates(got), b.cpuNote("relay", ds))))
	return nil
}

func (b *bench) relayDrain(ctx context.Context, rows int, fill func(context.Context, *benchDB) error, explain bool) (drain, error) {
	db, err := b.srv.create(ctx, "relay", 4)
	if err != nil {
		return drain{}, err
	}
	defer db.drop()
	if err := fill(ctx, db); err != nil {
		return drain{}, err
	}
	if explain {
		if err := b.explainRelayClaim(ctx, db, rows); err != nil {
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
	waitErr := b.waitRelayed(ctx, db, p, rows)
	cpu := p.cpuTime()
	if err := errors.Join(waitErr, p.stop()); err != nil {
		return drain{}, err
	}
	return relayWindow(ctx, db, rows, cpu)
}

// relayWindow reads the drain's span from the rows and checks that every
// row went into the outbox once.
func relayWindow(ctx context.Context, db *benchDB, rows int, cpu time.Duration) (drain, error) {
	var w window
	var first, last *time.Time
	var outbox int64
	err := db.Store.Pool.QueryRow(ctx, `
		SELECT count(*), min(claimed_at), max(processed_at), (SELECT count(*) FROM outbox)
		FROM inbox WHERE state = 'processed'`).Scan(&w.Rows, &first, &last, &outbox)
	if err != nil {
		return drain{}, err
	}
	if w.Rows != int64(rows) || outbox != w.Rows || first == nil || last == nil {
		return drain{}, fmt.Errorf("%d of %d inbox rows processed, %d outbox rows", w.Rows, rows, outbox)
	}
	w.First, w.Last = *first, *last
	return drain{Rate: w.rate(), CPUPerRow: cpu / time.Duration(w.Rows)}, nil
}

func (b *bench) explainRelayClaim(ctx context.Context, db *benchDB, rows int) error {
	title := fmt.Sprintf("inbox_relay_claim (keyedFirst=true), %s pending push rows", group(int64(rows)))
	return b.explain(ctx, db, title, "inbox_relay_claim", claimData{db.Layout, true}, b.o.batchSize,
		leaseForBench.Milliseconds(), []string{"bench"}, nil, "", nil, nil, nil, nil, nil)
}

// relayClaimLatency times Claim(batch) of the relay store in-process on a
// database that fill prepares. Each claimed batch is forwarded, untimed,
// so every claim finds the next heads, as in a running relay.
func (b *bench) relayClaimLatency(ctx context.Context, fill func(context.Context, *benchDB) error) (p50, p99 time.Duration, err error) {
	db, err := b.srv.create(ctx, "relayclaim", 4)
	if err != nil {
		return 0, 0, err
	}
	defer db.drop()
	if err := fill(ctx, db); err != nil {
		return 0, 0, err
	}
	r, err := postgres.NewRelay(db.Store, db.Layout, queuebox.RelayParams{Lease: leaseForBench, Sources: []string{"bench"}})
	if err != nil {
		return 0, 0, err
	}
	var lat []time.Duration
	for i := range claimWarmup + b.o.claimCalls {
		t0 := time.Now()
		claimed, err := r.Claim(ctx, b.o.batchSize)
		d := time.Since(t0)
		if err != nil {
			return 0, 0, err
		}
		if len(claimed) == 0 {
			return 0, 0, fmt.Errorf("claim %d returned no row", i+1)
		}
		if i >= claimWarmup {
			lat = append(lat, d)
		}
		fw := queuebox.ForwardParams{MaxAttempts: 3}
		for _, row := range claimed {
			fw.Rows = append(fw.Rows, queuebox.Forward{Lease: row.Lease(), Topic: "bench", Headers: []byte(`{}`)})
		}
		if _, err := r.Forward(ctx, fw); err != nil {
			return 0, 0, err
		}
	}
	return percentile(lat, 50), percentile(lat, 99), nil
}

// waitRelayed polls until no push row is pending or processing.
func (b *bench) waitRelayed(ctx context.Context, db *benchDB, p *proc, rows int) error {
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
			return fmt.Errorf("%d of %d inbox rows still pending or processing after %v", n, rows, b.o.drainTimeout)
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
