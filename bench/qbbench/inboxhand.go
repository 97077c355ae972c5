package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// handInboxRun is one run of the hand-written inbox over the four ingest
// variants.
type handInboxRun = variantFigures

// handInboxRound drives the hand-written inbox (bench/handinbox) on db
// with the same clients, bodies, signatures and loads as queuebox-ingest:
// a warm-up, then the four variants in the order of ingestOnce, the inbox
// truncated after each.
func (b *bench) handInboxRound(ctx context.Context, db *benchDB, run int, truncate func() error) (handInboxRun, error) {
	var out handInboxRun
	port, err := freePort()
	if err != nil {
		return out, err
	}
	p, err := startHand(ctx, "handinbox", port, "-db", db.URL, "-addr", fmt.Sprintf("127.0.0.1:%d", port),
		"-pool", itoa(b.o.pool), "-hmac-secret", hmacSecret)
	if err != nil {
		return out, err
	}
	pp := newPoster(b.o.httpStdlib, fmt.Sprintf("127.0.0.1:%d", port), b.o.clients)
	defer pp.close()
	warm := load{clients: b.o.clients, measure: b.o.ingestWarmup}
	warmPrefix := fmt.Sprintf("r%d-hwarm-", run)
	res := warm.run(ctx, func(ctx context.Context, client int, key int64) error {
		return pp.post(ctx, client, "/inbox/bench", warmPrefix, key, false)
	})
	if err := errors.Join(res.check("hand-written inbox warm-up"), truncate()); err != nil {
		return out, errors.Join(err, p.stop())
	}
	out, err = b.measureVariants(ctx, run, p, pp, "hand", "hand-written inbox", truncate, func(vi int, f variantFigures) {
		v, res := ingestVariants[vi], f.res[vi]
		logf("ingest run %d: hand-written inbox, %s %.0f req/s, p99 %.1f ms, CPU %v/req", run+1, v.name, res.Rate,
			ms(percentile(res.Latencies, 99)), f.cpu[vi])
	})
	if err != nil {
		return out, errors.Join(err, p.stop())
	}
	return out, p.stop()
}

// addHandInboxRow adds the judged row of variant vi: queuebox-ingest's
// median rate (got, with its CPU figures) against the hand-written
// inbox's, at httpIngestShare; the p99 ceiling is the ingest p99 row's.
func (b *bench) addHandInboxRow(vi int, got, cpu, loadCPU, dbCPU []float64, hand []handInboxRun) {
	var base, p99, hcpu, hload, hdb []float64
	for _, h := range hand {
		base = append(base, h.res[vi].Rate)
		p99 = append(p99, ms(percentile(h.res[vi].Latencies, 99)))
		hcpu = append(hcpu, float64(h.cpu[vi])/float64(time.Microsecond))
		hload = append(hload, float64(h.loadCPU[vi])/float64(time.Microsecond))
		hdb = append(hdb, float64(h.dbCPU[vi])/float64(time.Microsecond))
	}
	own := median(cpu) + median(loadCPU) + median(dbCPU)
	theirs := median(hcpu) + median(hload) + median(hdb)
	b.rep.add(vsBaseline("ingest vs hand-written inbox, "+ingestVariants[vi].name, median(got), median(base), "req/s", "req/s", httpIngestShare,
		fmt.Sprintf("%d clients; runs %s vs %s; hand-written inbox p99 %.1f ms; ingest CPU %.0f µs/req, inbox CPU %.0f; %s clients %.0f / %.0f µs/req; PostgreSQL %.0f / %.0f µs/req%s%s",
			b.o.clients, rates(got), rates(base), median(p99), median(cpu), median(hcpu), b.loadSide(), median(loadCPU), median(hload),
			median(dbCPU), median(hdb),
			coresBound("ingest, clients and PostgreSQL", own, "req/s", median(base)),
			coresBound("inbox, clients and PostgreSQL", theirs, "req/s", median(base)))))
}
