package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/alternayte/queuebox/pkg/store/lanehint"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/scanfloor"
)

// Settings of the soak (make soak). With -soak set, qbbench runs the
// soak instead of the scenarios and exits 1 when a figure grew too much.
var (
	soakFor = flag.Duration("soak", 0,
		"run the soak instead of the scenarios: queuebox-deliver and queuebox-ingest under a steady load for this long, judged on memory and claim p99 growth")
	soakRate = flag.Int("soak-rate", 100,
		"soak: outbox rows inserted per second, and webhooks posted per second (-soak-outbox-rate and -soak-inbox-rate set them apart)")
	soakWarmup = flag.Duration("soak-warmup", 30*time.Second,
		"soak: load before the first sample, not judged")
)

// soakProbeEvery is the pace of the claim probe.
const soakProbeEvery = 100 * time.Millisecond

// soak runs queuebox-deliver (to the receiver) and queuebox-ingest (an
// HTTP source without auth) on one database under an open-loop load of
// outbox rows and webhooks a second (-soak-rate, or -soak-outbox-rate and
// -soak-inbox-rate); with partitioning or retention on (soakparts.go) it
// runs queuebox-relay too. After -soak-warmup it samples, for -soak: the
// resident memory of the processes, the latency of the deliver claim
// statement, run by a probe in a transaction that rolls back (the
// binaries export no claim timer), the 0.99 quantile of deliver's
// processing time from its /metrics, the tables' size and their
// partitions. Then it compares the first and the last sixth of the
// samples, lets the processes finish the rows written, and checks that
// every one was delivered.
func (b *bench) soak(ctx context.Context) error {
	total := *soakFor
	if *soakWarmup < 0 || soakWindow(total) <= 0 {
		return fmt.Errorf("-soak-warmup must not be negative and -soak long enough for a window, got %v, %v", *soakWarmup, total)
	}
	if err := checkSoakFlags(); err != nil {
		return err
	}
	db, err := b.srv.create(ctx, "soak", 8)
	if err != nil {
		return err
	}
	defer db.drop()
	if err := partitionSoakDB(ctx, db); err != nil {
		return err
	}
	claims, err := b.claimStatements(db)
	if err != nil {
		return err
	}
	b.rc.reset()
	procs, err := startSoakBinaries(ctx, b, db)
	if err != nil {
		return err
	}
	st := &soakState{measureAt: time.Now().Add(*soakWarmup)}
	runErr := st.run(ctx, b, db, claims, procs, total)
	if err := errors.Join(runErr, stopAll(procs...)); err != nil {
		return err
	}
	st.report(b, total)
	return nil
}

// startSoakBinaries starts deliver and ingest, and relay when soakRelays,
// in that order, each with the soak's settings.
func startSoakBinaries(ctx context.Context, b *bench, db *benchDB) ([]*proc, error) {
	roles := []string{"deliver", "ingest"}
	if soakRelays() {
		roles = append(roles, "relay")
	}
	var procs []*proc
	for _, role := range roles {
		env := merge(db.env(b.o.pool), soakSettingsEnv())
		if role == "deliver" {
			env = merge(env, b.rc.destinationEnv(b.o))
		} else {
			env = merge(env, ingestEnv())
		}
		p, err := startBinary(ctx, b.o.binDir, role, env)
		if err != nil {
			return nil, errors.Join(err, stopAll(procs...))
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// soakState is what the soak's goroutines record.
type soakState struct {
	measureAt time.Time // end of the warm-up; samples are relative to it

	mu         sync.Mutex
	rss        map[string][]point // KiB, by role
	claims     []point            // ns
	processing []point            // seconds, deliver's 0.99 quantile
	size       []point            // bytes of the outbox and inbox
	partitions partitionLog

	// idleFrom and idleTo bound the idle transaction (-soak-idle-tx);
	// written by its goroutine, read after it ended.
	idleFrom, idleTo time.Duration
	// final is what the drain after the load found (soakaccount.go).
	final soakAccount

	inserted, posted, postFailed, probeFailed atomic.Int64
	sizeSkipped                               atomic.Int64 // size samples that gave way to a lock
	firstErr                                  atomic.Value // error of a load goroutine
}

// since is the offset of t from the end of the warm-up.
func (st *soakState) since(t time.Time) time.Duration { return t.Sub(st.measureAt) }

// run drives the load and samples until total after the warm-up.
func (st *soakState) run(ctx context.Context, b *bench, db *benchDB, claims probeStatements, procs []*proc, total time.Duration) error {
	loadCtx, stop := context.WithCancel(ctx)
	defer stop()
	pp := newPoster(b.o.httpStdlib, fmt.Sprintf("127.0.0.1:%d", procs[1].port), b.o.clients)
	defer pp.close()
	var wg sync.WaitGroup
	for _, f := range []func(context.Context){
		func(ctx context.Context) { st.feedOutbox(ctx, db) },
		func(ctx context.Context) { st.postWebhooks(ctx, pp, b.o.clients) },
		func(ctx context.Context) { st.probeClaims(ctx, db, claims) },
		func(ctx context.Context) { st.holdIdleTx(ctx, db, total) },
	} {
		wg.Add(1)
		go func() { defer wg.Done(); f(loadCtx) }()
	}
	err := st.sample(ctx, db, procs, total, b.rc.count.Load)
	stop()
	wg.Wait()
	if e, _ := st.firstErr.Load().(error); e != nil && err == nil {
		err = e
	}
	if err != nil {
		return err
	}
	st.final, err = st.settle(ctx, db, procs, b.rc.count.Load, b.o.drainTimeout)
	return err
}

// fail keeps the first error of a load goroutine.
func (st *soakState) fail(err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		st.firstErr.CompareAndSwap(nil, err)
	}
}

// paced calls step every tick with how many units are due since the
// start at perSecond, less those already counted, until ctx ends: a
// steady rate that makes up for a slow step instead of drifting.
func paced(ctx context.Context, tick time.Duration, perSecond int, step func(due int64)) {
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			step(int64(now.Sub(start).Seconds() * float64(perSecond)))
		}
	}
}

// feedOutbox inserts pending outbox rows (null keys) at outboxRate, as an
// application writing its outbox would.
func (st *soakState) feedOutbox(ctx context.Context, db *benchDB) {
	paced(ctx, 100*time.Millisecond, outboxRate(), func(due int64) {
		n := due - st.inserted.Load()
		if n <= 0 {
			return
		}
		err := db.exec(ctx, `
			INSERT INTO outbox (topic, payload)
			SELECT 'bench.event', jsonb_build_object('n', g, 'kind', 'bench', 'amount', g % 1000)
			FROM generate_series($1::bigint + 1, $1::bigint + $2::bigint) AS g`, st.inserted.Load(), n)
		if err != nil {
			st.fail(fmt.Errorf("insert outbox rows: %w", err))
			return
		}
		st.inserted.Add(n)
	})
}

// postWebhooks posts unique webhooks to queuebox-ingest at inboxRate
// from clients connections (-clients); requests wait in a queue of one
// second's worth while every client is busy, and a tick that finds the
// queue full leaves its requests for the next.
func (st *soakState) postWebhooks(ctx context.Context, pp poster, clients int) {
	jobs := make(chan int64, inboxRate())
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range jobs {
				if err := pp.post(ctx, c, "/inbox/bench", "soak-", key, false); err != nil {
					if ctx.Err() == nil {
						st.postFailed.Add(1)
					}
					continue
				}
				st.posted.Add(1)
			}
		}()
	}
	var issued int64
	paced(ctx, 10*time.Millisecond, inboxRate(), func(due int64) {
		for ; issued < due; issued++ {
			select {
			case jobs <- issued:
			default:
				return // every client busy and the queue full: later
			}
		}
	})
	close(jobs)
	wg.Wait()
}

// probeStatements are what the claim probe runs: both walks of the
// deliver claim (keyed heads first, unkeyed rows first), which it
// alternates as the store does, and the store's checks beside its claims:
// the oldest due row without a key and, on a partitioned outbox, the
// oldest active row ("" otherwise).
type probeStatements struct {
	claims                      [2]string
	oldestUnkeyed, oldestActive string
}

// claimStatements renders the probe's statements for db's layout.
func (b *bench) claimStatements(db *benchDB) (probeStatements, error) {
	var out probeStatements
	for i, keyedFirst := range []bool{true, false} {
		sql, err := b.statement("outbox_claim", claimData{db.Layout, keyedFirst})
		if err != nil {
			return out, fmt.Errorf("render the claim statement: %w", err)
		}
		out.claims[i] = sql
	}
	sql, err := b.statement("outbox_oldest_unkeyed", db.Layout)
	if err != nil {
		return out, fmt.Errorf("render the check of unkeyed rows: %w", err)
	}
	out.oldestUnkeyed = sql
	if db.Layout.Partitioned {
		sql, err := b.statement("outbox_oldest_active", db.Layout)
		if err != nil {
			return out, fmt.Errorf("render the active check: %w", err)
		}
		out.oldestActive = sql
	}
	return out, nil
}

// probeClaims runs Claim(-batch) every soakProbeEvery in a transaction
// that rolls back, so no row changes hands, and records how long the
// statement took. The rows it locks for that moment are skipped by
// deliver's claims (SKIP LOCKED) and taken by the next one. It bounds the
// scans of unkeyed rows as the store does (package scanfloor) and keeps
// hints for the lanes' walk from the heads it saw (package lanehint),
// with the store's checks beside it, so what it times is what deliver's
// claims cost, full walks and scans included.
func (st *soakState) probeClaims(ctx context.Context, db *benchDB, stmts probeStatements) {
	t := time.NewTicker(soakProbeEvery)
	defer t.Stop()
	var floor scanfloor.Floor
	floor.CheckBeside()
	hints := lanehint.New(func(a, b int64) bool { return a > b })
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var (
			took time.Duration
			seen claimSeen
		)
		start := time.Now()
		bound := floor.Next(start)
		plan := hints.Next(start)
		if floor.StartCheck(start) {
			go func() {
				at, took, oldest := checkOldest(ctx, db, stmts.oldestUnkeyed, nil)
				if oldest == nil {
					oldest = &time.Time{}
				}
				floor.Checked(at, took, *oldest)
			}()
		}
		if stmts.oldestActive != "" && hints.StartActiveCheck(start) {
			go func() { hints.ActiveChecked(checkOldest(ctx, db, stmts.oldestActive)) }()
		}
		err := pgx.BeginTxFunc(ctx, db.Store.Pool, pgx.TxOptions{BeginQuery: postgres.ClaimBegin}, func(tx pgx.Tx) error {
			t0 := time.Now()
			rows, err := tx.Query(ctx, stmts.claims[i%2], 100, "", leaseForBench.Milliseconds(), nil, "", bound,
				plan.Keys(), plan.Destinations(), plan.Places, plan.Count, plan.ActiveFrom)
			if err != nil {
				return err
			}
			seen, err = readClaim(rows)
			took = time.Since(t0)
			if err != nil {
				return err
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			if ctx.Err() == nil {
				st.probeFailed.Add(1)
				st.fail(fmt.Errorf("claim probe: %w", err))
			}
			continue
		}
		floor.Done(bound, start, took, seen.oldest)
		hints.Done(plan, start, took, seen.Seen)
		if at := st.since(time.Now()); at >= 0 {
			st.mu.Lock()
			st.claims = append(st.claims, point{at, float64(took)})
			st.mu.Unlock()
		}
	}
}

// checkOldest runs one of the store's checks beside its claims (see
// pkg/store/postgres/active_check.go), stmt with args, and returns when it
// started, how long it took and the time it read, nil for none or on an
// error.
func checkOldest(ctx context.Context, db *benchDB, stmt string, args ...any) (time.Time, time.Duration, *time.Time) {
	start := time.Now()
	var oldest *time.Time
	err := pgx.BeginTxFunc(ctx, db.Store.Pool, pgx.TxOptions{BeginQuery: postgres.ClaimBegin}, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, stmt, args...).Scan(&oldest)
	})
	if err != nil {
		oldest = nil
	}
	return start, time.Since(start), oldest
}

// claimSeen is what the probe reads of a claim's rows: the earliest
// scheduled_at of those without a key, and what the lane hints learn.
type claimSeen struct {
	oldest time.Time
	lanehint.Seen[int64]
}

// readClaim reads the rows of outbox_claim.sql: key (the third column),
// sequence (the tenth), destination (the twelfth), then scheduled_at,
// the requeue count and the oldest active created_at (the last three).
func readClaim(rows pgx.Rows) (claimSeen, error) {
	defer rows.Close()
	var seen claimSeen
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			return seen, err
		}
		key, _ := v[2].(string)
		due, ok := v[len(v)-3].(time.Time)
		if key == "" && ok && (seen.oldest.IsZero() || due.Before(seen.oldest)) {
			seen.oldest = due
		}
		if n, ok := v[len(v)-2].(int64); ok {
			seen.Count = &n
		}
		if at, ok := v[len(v)-1].(time.Time); ok {
			seen.Active = &at
		}
		if seq, ok := v[9].(int64); ok && key != "" {
			dest, _ := v[11].(string)
			seen.Taken = append(seen.Taken, lanehint.Taken[int64]{
				Lane: lanehint.Lane{Key: key, Destination: dest}, Place: seq})
		}
	}
	return seen, rows.Err()
}

// soakSampleEvery is the sampling interval: a tenth of a window, at most
// 10 s.
func soakSampleEvery(total time.Duration) time.Duration {
	return max(min(soakWindow(total)/10, 10*time.Second), time.Second)
}

// sample waits out the warm-up, then reads the memory of the processes,
// deliver's metrics, the tables' size and their partitions every
// soakSampleEvery until total has passed. A process that exits is an
// error; delivered is the receiver's count, for the progress lines.
func (st *soakState) sample(ctx context.Context, db *benchDB, procs []*proc, total time.Duration, delivered func() int64) error {
	every := soakSampleEvery(total)
	logf("soak: warm-up %v, then %v of samples every %v, windows of %v", *soakWarmup, total, every, soakWindow(total))
	if err := sleepCtx(ctx, time.Until(st.measureAt)); err != nil {
		return err
	}
	client := &http.Client{Timeout: 5 * time.Second}
	st.rss = map[string][]point{}
	for n := 0; ; n++ {
		for _, p := range procs {
			if err := p.exited(); err != nil {
				return err
			}
		}
		at := st.since(time.Now())
		q, qerr := scrape(ctx, client, procs[0].url("/metrics"), `queuebox_outbox_processing_duration_seconds{quantile="0.99"}`)
		size, sized, err := tablesSize(ctx, db)
		if err != nil {
			return fmt.Errorf("size of the tables: %w", err)
		}
		if !sized {
			st.sizeSkipped.Add(1)
		}
		names, err := partitionNames(ctx, db)
		if err != nil {
			return fmt.Errorf("list the partitions: %w", err)
		}
		st.mu.Lock()
		for _, p := range procs {
			st.rss[p.role()] = append(st.rss[p.role()], point{at, float64(procStatusKiB(p, "VmRSS"))})
		}
		if qerr == nil {
			st.processing = append(st.processing, point{at, q})
		}
		if sized {
			st.size = append(st.size, point{at, float64(size)})
		}
		st.partitions.observe(names)
		st.mu.Unlock()
		if n%6 == 0 {
			logf("soak %v: deliver %.0f MiB, ingest %.0f MiB, %d rows inserted, %d delivered, %d webhooks stored, tables %.0f MiB, %d partitions (%d made, %d dropped)",
				at.Round(time.Second), float64(procStatusKiB(procs[0], "VmRSS"))/1024, float64(procStatusKiB(procs[1], "VmRSS"))/1024,
				st.inserted.Load(), delivered(), st.posted.Load(), float64(size)/(1<<20), len(names), st.partitions.made(), st.partitions.dropped())
		}
		if at >= total {
			return nil
		}
		next := min(time.Duration(n+1)*every, total)
		if err := sleepCtx(ctx, time.Until(st.measureAt.Add(next))); err != nil {
			return err
		}
	}
}

// report adds the soak's rows: the judged memory, claim, size and loss
// rows, then deliver's processing p99, the partitions and the load that
// ran, for information.
func (st *soakState) report(b *bench, total time.Duration) {
	kib := func(v float64) string { return fmt.Sprintf("%.1f MiB", v/1024) }
	msOf := func(v float64) string { return fmt.Sprintf("%.2f ms", v/float64(time.Millisecond)) }
	for _, role := range []string{"deliver", "ingest", "relay"} {
		if pts, ok := st.rss[role]; ok {
			s := series{name: "queuebox-" + role + " peak resident memory", points: pts, agg: peakOf, format: kib}
			b.rep.add(soakRow(s, judge(s, total, soakGrowth), total))
		}
	}
	claims := series{name: fmt.Sprintf("claim(100) p99, probe every %v", soakProbeEvery), points: st.claims, agg: p99Of, format: msOf}
	x := soakRow(claims, judge(claims, total, soakGrowth), total)
	// The median beside the p99 tells a slower statement (both grow) from
	// a few stalls of a busy machine (the p99 alone grows).
	if mid := judge(series{points: st.claims, agg: quantileOf(50)}, total, soakGrowth); mid.problem == "" {
		x.Notes += fmt.Sprintf("; p50 %s in the first window, %s in the last", msOf(mid.first), msOf(mid.last))
	}
	b.rep.add(x)
	proc := series{name: "queuebox-deliver processing p99 (its /metrics)", points: st.processing, agg: peakOf,
		format: func(v float64) string { return fmt.Sprintf("%.1f ms", v*1000) }}
	x = soakRow(proc, judge(proc, total, soakGrowth), total)
	x.Target, x.Result = "-", resultInfo
	x.Notes = "the summary's 0.99 quantile, the highest sample of each window; " + x.Notes
	b.rep.add(x)
	x = sizeRow(st.size, total, *soakRetentionAge > 0)
	x.Notes += fmt.Sprintf("; %d samples skipped, their locks given way to a drop", st.sizeSkipped.Load())
	b.rep.add(x)
	b.rep.add(st.partitionRow())
	b.rep.add(st.final.row())
	secs := (total + *soakWarmup).Seconds()
	notes := fmt.Sprintf("%d outbox rows inserted, %d delivered; %d webhooks stored (%.0f req/s), %d failed; %d claim probes failed; over %v with the warm-up",
		st.inserted.Load(), b.rc.count.Load(), st.posted.Load(), float64(st.posted.Load())/secs, st.postFailed.Load(), st.probeFailed.Load(),
		(total + *soakWarmup).Round(time.Second))
	if *soakIdleTx > 0 {
		notes += fmt.Sprintf("; an idle transaction open from %v to %v of the measured run", st.idleFrom.Round(time.Second), st.idleTo.Round(time.Second))
	}
	b.rep.add(row{Scenario: "soak, load", Measured: rate(float64(b.rc.count.Load())/secs, "rows/s delivered"),
		Baseline: rate(float64(outboxRate()), "outbox rows/s asked"), Ratio: "-", Target: "-", Result: resultInfo,
		Notes: fmt.Sprintf("%d webhooks/s asked; %s", inboxRate(), notes)})
}

// statusKiB reads a "Name:   123 kB" field of a /proc/<pid>/status text;
// 0 when it is absent or malformed.
func statusKiB(status, field string) int64 {
	for _, line := range strings.Split(status, "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return n
	}
	return 0
}

// scrape reads one sample of the Prometheus text at url: the value of
// the line whose series (name and labels, as printed) is exactly series.
func scrape(ctx context.Context, client *http.Client, url, series string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	v, ok := sampleValue(string(text), series)
	if !ok {
		return 0, fmt.Errorf("%s has no sample %s", url, series)
	}
	return v, nil
}

// sampleValue finds series in a Prometheus text exposition and parses
// its value; false when the series is absent or its value malformed.
func sampleValue(text, series string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, series+" ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil
	}
	return 0, false
}
