package main

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// claimWarmup is the number of untimed claims before the timed ones.
const claimWarmup = 5

// claimLatency times Claim(batch) in-process with -claim-rows pending
// rows, for null keys and for -deliver-keys keys. After each timed claim
// the claimed rows are finished as sent, untimed, so every claim sees the
// same backlog (less the few rows sent before it) and every key a fresh
// head, as in a running poller. The p50 and p99 are over -claim-calls
// calls.
func (b *bench) claimLatency(ctx context.Context) error {
	for _, keys := range []int{0, b.o.deliverKeys} {
		p50, p99, err := b.claimLatencyFor(ctx, keys)
		if err != nil {
			return fmt.Errorf("%s: %w", keyLabel(keys), err)
		}
		logf("claim %s: p50 %.1f ms, p99 %.1f ms", keyLabel(keys), ms(p50), ms(p99))
		b.rep.add(below(fmt.Sprintf("claim(%d) p50, %s pending, %s", b.o.batchSize, group(int64(b.o.claimRows)), keyLabel(keys)),
			ms(p50), 20, fmt.Sprintf("p99 %.1f ms over %d calls", ms(p99), b.o.claimCalls)))
	}
	return nil
}

func (b *bench) claimLatencyFor(ctx context.Context, keys int) (p50, p99 time.Duration, err error) {
	db, err := b.srv.create(ctx, "claim", 4)
	if err != nil {
		return 0, 0, err
	}
	defer db.drop()
	if err := db.insertOutbox(ctx, b.o.claimRows, keys); err != nil {
		return 0, 0, err
	}
	ob, err := postgres.NewOutbox(db.Store, db.Layout, leaseForBench)
	if err != nil {
		return 0, 0, err
	}
	var lat []time.Duration
	for i := range claimWarmup + b.o.claimCalls {
		t0 := time.Now()
		msgs, err := ob.Claim(ctx, b.o.batchSize)
		d := time.Since(t0)
		if err != nil {
			return 0, 0, err
		}
		if len(msgs) == 0 {
			return 0, 0, fmt.Errorf("claim %d returned no row", i+1)
		}
		if i >= claimWarmup {
			lat = append(lat, d)
		}
		if _, err := ob.Finish(ctx, sentOutcomes(msgs)); err != nil {
			return 0, 0, err
		}
	}
	if b.o.explain {
		if err := b.explainClaim(ctx, db, keys); err != nil {
			return 0, 0, fmt.Errorf("explain: %w", err)
		}
	}
	return percentile(lat, 50), percentile(lat, 99), nil
}

// claimData is what the claim templates render from.
type claimData struct {
	schema.Layout
	KeyedFirst bool
}

// explainClaim prints EXPLAIN (ANALYZE, BUFFERS) of both variants of the
// claim statement: the keyed walk first and the unkeyed rows first.
func (b *bench) explainClaim(ctx context.Context, db *benchDB, keys int) error {
	for _, keyedFirst := range []bool{true, false} {
		title := fmt.Sprintf("outbox_claim (keyedFirst=%v), %s pending, %s, cursor ''",
			keyedFirst, group(int64(b.o.claimRows)), keyLabel(keys))
		err := b.explain(ctx, db, title, "outbox_claim", claimData{db.Layout, keyedFirst},
			b.o.batchSize, "", leaseForBench.Milliseconds(), nil)
		if err != nil {
			return err
		}
	}
	return nil
}
