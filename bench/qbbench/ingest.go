package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// hmacSecret is the shared secret of the signed benchmark source.
const hmacSecret = "qbbench-hmac-secret"

// baselineInsert is the statement of inbox_insert.sql rendered for the
// default layout: one row per statement, in its own transaction
// (autocommit), deduplicated by the unique constraint alone.
const baselineInsert = `
INSERT INTO inbox (id, source, idempotency_key, aggregate_id, event_type, payload, headers,
                   correlation_id, consumption, state, last_error)
VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb,
        $8, $9, $10, $11)
ON CONFLICT (source, idempotency_key) DO NOTHING
RETURNING id::text`

// baselineHeaders stands for the headers queuebox-ingest stores with a
// request: lower-case names, one value each.
const baselineHeaders = `{"host":"127.0.0.1","user-agent":"Go-http-client/1.1","content-type":"application/json","content-length":"84","accept-encoding":"gzip"}`

// ingestVariant is one of the four ingest measurements.
type ingestVariant struct {
	name string
	hmac bool
	dup  bool
}

var ingestVariants = []ingestVariant{
	{"no auth, unique keys", false, false},
	{"no auth, 50 % duplicates", false, true},
	{"HMAC, unique keys", true, false},
	{"HMAC, 50 % duplicates", true, true},
}

// ingestRun holds one run's figures.
type ingestRun struct {
	base     map[bool]loadResult    // by dup
	variants []loadResult           // in ingestVariants order
	cpu      []time.Duration        // CPU of queuebox-ingest per request, by variant
	loadCPU  []time.Duration        // CPU of this process (the load clients) per request, by variant
	dbCPU    []time.Duration        // CPU of every postgres process per request, by variant
	baseDB   map[bool]time.Duration // the same per transaction of the SQL baseline, by dup
	hand     handInboxRun           // the hand-written inbox (inboxhand.go)
}

// ingest compares queuebox-ingest with plain INSERT … ON CONFLICT DO
// NOTHING from -clients concurrent clients. Each run uses a fresh database:
// the SQL baseline with unique keys and with 50 % duplicates, then
// queuebox-ingest (two HTTP sources, one without auth and one with HMAC)
// for the four variants. The inbox is truncated before every load, so
// each starts from an empty table.
// httpIngestShare is the share of the hand-written inbox (one INSERT …
// ON CONFLICT transaction per request from 16 clients, issue 42; the
// SQL loop of issue 28 before it) that an HTTP source must reach: group
// commit puts many requests in one commit.
const httpIngestShare = 1.50

// brokerIngestShare is the same for a broker source, against the insert
// at the source's own concurrency (issue 28).
const brokerIngestShare = 3.00

func (b *bench) ingest(ctx context.Context) error {
	var runs []ingestRun
	for i := range b.o.runs {
		r, err := b.ingestOnce(ctx, i)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	for _, dup := range []bool{false, true} {
		var vals []float64
		var p99 []float64
		for _, r := range runs {
			vals = append(vals, r.base[dup].Rate)
			p99 = append(p99, ms(percentile(r.base[dup].Latencies, 99)))
		}
		name := "SQL baseline, unique keys"
		if dup {
			name = "SQL baseline, 50 % duplicates"
		}
		b.rep.add(row{Scenario: fmt.Sprintf("%s, %d clients", name, b.o.clients), Measured: rate(median(vals), "tx/s"),
			Baseline: "-", Ratio: "-", Target: "-", Result: resultInfo,
			Notes: fmt.Sprintf("p99 %.1f ms; runs %s", median(p99), rates(vals))})
	}
	for vi, v := range ingestVariants {
		var got, base, p50, p99, baseP99, cpu, loadCPU, dbCPU, baseDB []float64
		for _, r := range runs {
			dbCPU = append(dbCPU, float64(r.dbCPU[vi])/float64(time.Microsecond))
			baseDB = append(baseDB, float64(r.baseDB[v.dup])/float64(time.Microsecond))
			got = append(got, r.variants[vi].Rate)
			base = append(base, r.base[v.dup].Rate)
			p50 = append(p50, ms(percentile(r.variants[vi].Latencies, 50)))
			p99 = append(p99, ms(percentile(r.variants[vi].Latencies, 99)))
			baseP99 = append(baseP99, ms(percentile(r.base[v.dup].Latencies, 99)))
			cpu = append(cpu, float64(r.cpu[vi])/float64(time.Microsecond))
			loadCPU = append(loadCPU, float64(r.loadCPU[vi])/float64(time.Microsecond))
		}
		// The SQL loop pays no HTTP: since issue 42 the hand-written
		// inbox is the bar, and this row is the database's limit, printed.
		b.rep.add(info(vsBaseline("ingest, "+v.name, median(got), median(base), "req/s", "tx/s", httpIngestShare,
			fmt.Sprintf("runs %s; ingest CPU %.0f µs/req, %s clients %.0f µs/req; PostgreSQL %.0f µs/req (SQL baseline %.0f µs/tx)%s",
				rates(got), median(cpu), b.loadSide(), median(loadCPU), median(dbCPU), median(baseDB),
				coresBound("ingest, clients and PostgreSQL", median(cpu)+median(loadCPU)+median(dbCPU), "req/s", median(base))))))
		hand := make([]handInboxRun, len(runs))
		for i, r := range runs {
			hand[i] = r.hand
		}
		b.addHandInboxRow(vi, got, cpu, loadCPU, dbCPU, hand)
		x := below("ingest p99, "+v.name, median(p99), 25, fmt.Sprintf("p50 %.1f ms; baseline is the SQL p99", median(p50)))
		x.Baseline = fmt.Sprintf("%.1f ms", median(baseP99))
		x.Ratio = fmt.Sprintf("%.1f×", median(p99)/median(baseP99))
		b.rep.add(x)
	}
	return nil
}

func (b *bench) ingestOnce(ctx context.Context, run int) (ingestRun, error) {
	out := ingestRun{base: map[bool]loadResult{}, baseDB: map[bool]time.Duration{}}
	db, err := b.srv.create(ctx, "ingest", b.o.clients+4)
	if err != nil {
		return out, err
	}
	defer db.drop()
	truncate := func() error { return db.exec(ctx, "TRUNCATE inbox") }

	for _, dup := range []bool{false, true} {
		prefix := fmt.Sprintf("r%d-sql-%v-", run, dup)
		l := load{clients: b.o.clients, warmup: b.o.ingestWarmup, measure: b.o.ingestTime, dup: dup}
		db0 := commandsCPU("postgres")
		res := l.run(ctx, func(ctx context.Context, _ int, key int64) error {
			return sqlInsert(ctx, db, prefix, key)
		})
		out.baseDB[dup] = (commandsCPU("postgres") - db0) / time.Duration(max(res.Sent, 1))
		if err := res.check("SQL baseline"); err != nil {
			return out, err
		}
		logf("ingest run %d: SQL baseline dup=%v %.0f tx/s, p99 %.1f ms", run+1, dup, res.Rate, ms(percentile(res.Latencies, 99)))
		out.base[dup] = res
		if err := truncate(); err != nil {
			return out, err
		}
	}

	if out.hand, err = b.handInboxRound(ctx, db, run, truncate); err != nil {
		return out, fmt.Errorf("hand-written inbox: %w", err)
	}
	p, err := startBinary(ctx, b.o.binDir, "ingest", merge(db.env(b.o.pool), ingestEnv()))
	if err != nil {
		return out, err
	}
	pp := newPoster(b.o.httpStdlib, fmt.Sprintf("127.0.0.1:%d", p.port), b.o.clients)
	defer pp.close()
	// A warm-up load first (connections of the client and of the pool,
	// the runtime's heap), then the variants in an order that rotates with
	// the run, so no variant always comes first.
	warm := load{clients: b.o.clients, measure: b.o.ingestWarmup}
	warmPrefix := fmt.Sprintf("r%d-warm-", run)
	res := warm.run(ctx, func(ctx context.Context, client int, key int64) error {
		return pp.post(ctx, client, "/inbox/bench", warmPrefix, key, false)
	})
	if err := errors.Join(res.check("queuebox-ingest warm-up"), truncate()); err != nil {
		return out, errors.Join(err, p.stop())
	}
	f, err := b.measureVariants(ctx, run, p, pp, "http", "queuebox-ingest", truncate, func(vi int, f variantFigures) {
		v, res := ingestVariants[vi], f.res[vi]
		logf("ingest run %d: %s %.0f req/s, p50 %.1f ms, p99 %.1f ms, CPU %v/req, %s clients %v/req", run+1, v.name, res.Rate,
			ms(percentile(res.Latencies, 50)), ms(percentile(res.Latencies, 99)), f.cpu[vi], b.loadSide(), f.loadCPU[vi])
	})
	if err != nil {
		return out, errors.Join(err, p.stop())
	}
	out.variants, out.cpu, out.loadCPU, out.dbCPU = f.res, f.cpu, f.loadCPU, f.dbCPU
	return out, p.stop()
}

// ingestEnv configures two HTTP sources on the same extraction paths:
// bench without auth and signed with HMAC-SHA256 over the body.
func ingestEnv() map[string]string {
	env := map[string]string{
		"QUEUEBOX_SOURCES_SIGNED_AUTH_TYPE":   "hmac",
		"QUEUEBOX_SOURCES_SIGNED_AUTH_SECRET": hmacSecret,
	}
	for _, name := range []string{"BENCH", "SIGNED"} {
		p := "QUEUEBOX_SOURCES_" + name + "_"
		env[p+"TYPE"] = "http"
		env[p+"PATH"] = "/" + map[string]string{"BENCH": "bench", "SIGNED": "signed"}[name]
		env[p+"IDEMPOTENCYKEYPATH"] = "$.id"
		env[p+"EVENTTYPEPATH"] = "$.type"
		env[p+"AGGREGATEIDPATH"] = "$.customer"
	}
	return env
}

// sqlInsert is one baseline statement. A duplicate returns no row, which
// is a success, as for the store.
func sqlInsert(ctx context.Context, db *benchDB, prefix string, key int64) error {
	aggregate, eventType := fmt.Sprintf("cust-%d", key%1000), "bench.created"
	var id string
	err := db.Store.Pool.QueryRow(ctx, baselineInsert, nil, "bench", fmt.Sprintf("%s%d", prefix, key),
		aggregate, eventType, string(body(prefix, key)), baselineHeaders, nil, "push", "pending", nil).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}
