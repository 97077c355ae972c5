package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/schema"
)

// claimWarmup is the number of untimed claims before the timed ones.
const claimWarmup = 5

// Flags of the claim rows. The failing lane row (issue 37) holds
// -claim-rows pending rows, of which -claim-backlog are the backlog of a
// failing destination's lane: postponed an hour ahead, as an open breaker
// leaves them, on -claim-backlog-lanes of the bench's keys (1: one lane;
// -deliver-keys: the failing destination on every key). The rest go to a
// healthy destination on -deliver-keys keys, due now. Every row carries
// the destination its route would give it, as the routing step before a
// claim writes it.
var (
	claimOnly = flag.String("claim-only", "",
		"claim: comma-separated rows to run, of null, keyed and lane (the failing lane's backlog); empty runs all three")
	claimBacklog = flag.Int("claim-backlog", 150000,
		"claim: of -claim-rows, the postponed rows of the failing lane in the lane row")
	claimBacklogLanes = flag.Int("claim-backlog-lanes", 1,
		"claim: the keys the failing destination's backlog is spread over in the lane row (1 is one lane)")
)

// claimSelected says whether -claim-only names row, or is empty.
func claimSelected(row string) bool {
	if *claimOnly == "" {
		return true
	}
	for _, name := range strings.Split(*claimOnly, ",") {
		if strings.TrimSpace(name) == row {
			return true
		}
	}
	return false
}

// claimLatency times Claim(batch) in-process with -claim-rows pending
// rows, for null keys and for -deliver-keys keys, and for -deliver-keys
// keys beside a failing lane's backlog. After each timed claim the
// claimed rows are finished as sent, untimed, so every claim sees the
// same backlog (less the few rows sent before it) and every key a fresh
// head, as in a running poller. The p50 and p99 are over -claim-calls
// calls. Keyed rows are written with their destination (insertOutboxTo).
func (b *bench) claimLatency(ctx context.Context) error {
	for _, c := range []struct {
		row  string
		keys int
	}{{"null", 0}, {"keyed", b.o.deliverKeys}} {
		if !claimSelected(c.row) {
			continue
		}
		rows := fmt.Sprintf("%s pending, %s", group(int64(b.o.claimRows)), keyLabel(c.keys))
		p50, p99, err := b.claimLatencyFor(ctx, rows, func(db *benchDB) error { return db.insertOutboxTo(ctx, b.o.claimRows, c.keys, benchDestination) })
		if err != nil {
			return fmt.Errorf("%s: %w", keyLabel(c.keys), err)
		}
		logf("claim %s: p50 %.1f ms, p99 %.1f ms", keyLabel(c.keys), ms(p50), ms(p99))
		b.rep.add(below(fmt.Sprintf("claim(%d) p50, %s", b.o.batchSize, rows),
			ms(p50), 20, fmt.Sprintf("p99 %.1f ms over %d calls", ms(p99), b.o.claimCalls)))
	}
	if claimSelected("lane") {
		return b.claimLaneBacklog(ctx)
	}
	return nil
}

// claimLaneBacklog is the failing lane row (see claimBacklog).
func (b *bench) claimLaneBacklog(ctx context.Context) error {
	backlog, lanes := *claimBacklog, *claimBacklogLanes
	if backlog < 0 || backlog >= b.o.claimRows || lanes < 1 || lanes > b.o.deliverKeys {
		return fmt.Errorf("-claim-backlog must be at least 0 and below -claim-rows, -claim-backlog-lanes from 1 to -deliver-keys")
	}
	where := "one lane"
	if lanes > 1 {
		where = fmt.Sprintf("%s lanes", group(int64(lanes)))
	}
	rows := fmt.Sprintf("%s pending, %s, %s of them a failing destination's postponed backlog on %s",
		group(int64(b.o.claimRows)), keyLabel(b.o.deliverKeys), group(int64(backlog)), where)
	p50, p99, err := b.claimLatencyFor(ctx, rows, func(db *benchDB) error {
		return db.insertLaneBacklog(ctx, b.o.claimRows, backlog, b.o.deliverKeys, lanes)
	})
	if err != nil {
		return fmt.Errorf("failing lane: %w", err)
	}
	logf("claim beside a failing lane: p50 %.1f ms, p99 %.1f ms", ms(p50), ms(p99))
	b.rep.add(below(fmt.Sprintf("claim(%d) p50, %s", b.o.batchSize, rows),
		ms(p50), 20, fmt.Sprintf("p99 %.1f ms over %d calls", ms(p99), b.o.claimCalls)))
	return nil
}

// claimLatencyFor fills a fresh database with insert and times the
// claims (see claimLatency); rows describes what insert wrote, for
// -explain.
func (b *bench) claimLatencyFor(ctx context.Context, rows string, insert func(*benchDB) error) (p50, p99 time.Duration, err error) {
	db, err := b.srv.create(ctx, "claim", 4)
	if err != nil {
		return 0, 0, err
	}
	defer db.drop()
	if err := insert(db); err != nil {
		return 0, 0, err
	}
	p50, p99, err = timeClaims(ctx, db, b.o.batchSize, b.o.claimCalls)
	if err != nil {
		return 0, 0, err
	}
	if b.o.explain {
		if err := b.explainClaim(ctx, db, rows); err != nil {
			return 0, 0, fmt.Errorf("explain: %w", err)
		}
	}
	return p50, p99, nil
}

// insertLaneBacklog adds rows pending rows routed as the routing step
// would: backlog rows of destination down on lanes of the keys (the
// bench's key names), postponed an hour, then the others, due now, to
// destination up on keys keys. Both follow insertOutbox's key scheme.
func (d *benchDB) insertLaneBacklog(ctx context.Context, rows, backlog, keys, lanes int) error {
	err := d.exec(ctx, `
		INSERT INTO outbox (topic, key, payload, destination, scheduled_at)
		SELECT 'down.event', 'key-' || lpad((g % $2::int)::text, 5, '0'),
		       jsonb_build_object('n', g, 'kind', 'bench', 'amount', g % 1000), 'down', now() + interval '1 hour'
		FROM generate_series(1, $1::int) AS g
		ORDER BY g`, backlog, lanes)
	if err != nil {
		return fmt.Errorf("insert the %d rows of the failing lane: %w", backlog, err)
	}
	err = d.exec(ctx, `
		INSERT INTO outbox (topic, key, payload, destination)
		SELECT 'up.event', 'key-' || lpad((g % $2::int)::text, 5, '0'),
		       jsonb_build_object('n', g, 'kind', 'bench', 'amount', g % 1000), 'up'
		FROM generate_series(1, $1::int) AS g
		ORDER BY g`, rows-backlog, keys)
	if err != nil {
		return fmt.Errorf("insert %d healthy rows: %w", rows-backlog, err)
	}
	return d.vacuumAnalyze(ctx, "outbox")
}

// claimData is what the claim templates render from.
type claimData struct {
	schema.Layout
	KeyedFirst bool
}

// explainClaim prints EXPLAIN (ANALYZE, BUFFERS) of both variants of the
// claim statement: the keyed walk first and the unkeyed rows first.
func (b *bench) explainClaim(ctx context.Context, db *benchDB, rows string) error {
	for _, keyedFirst := range []bool{true, false} {
		title := fmt.Sprintf("outbox_claim (keyedFirst=%v), %s, cursor ('', '')", keyedFirst, rows)
		err := b.explain(ctx, db, title, "outbox_claim", claimData{db.Layout, keyedFirst},
			b.o.batchSize, "", leaseForBench.Milliseconds(), nil, "", nil, nil, nil, nil, nil, nil)
		if err != nil {
			return err
		}
	}
	return nil
}
