package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// captureRates are the insert rates of the capture scenario, rows/s.
var captureRates = []int{10, 100, 1000}

// capture measures commit-to-delivery latency with capture on
// (pollIntervalMs 60000, so only wake-ups deliver promptly) beside
// polling at 100 ms, both to the loopback receiver and in the same run,
// at 10, 100 and 1,000 rows/s. The latency of a row is updated_at (its
// sent write) minus created_at (clock_timestamp() of its autocommit
// insert), both from the database clock. Then it inserts a burst of
// 100,000 rows and watches the slot lag return to near zero.
func (b *bench) capture(ctx context.Context) error {
	for _, mode := range []string{"capture", "polling 100 ms"} {
		if err := b.captureMode(ctx, mode); err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
	}
	return nil
}

func (b *bench) captureMode(ctx context.Context, mode string) (err error) {
	on := mode == "capture"
	db, err := b.srv.create(ctx, "capture", 8)
	if err != nil {
		return err
	}
	defer db.drop()
	if on {
		// Runs after the processes stopped (deferred later, so earlier)
		// and before the database is dropped.
		defer dropBenchSlot(db, db.Name)
	}
	env := merge(db.env(4), b.rc.destinationEnv(b.o), map[string]string{"QUEUEBOX_OUTBOX_POLLINTERVALMS": "100"})
	var procs []*proc
	defer func() { err = errors.Join(err, stopAll(procs...)) }()
	if on {
		slot := db.Name
		if err := db.exec(ctx, `CREATE PUBLICATION qbbench_pub FOR TABLE outbox`); err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "qbbench-capture-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		env = merge(env, map[string]string{
			"QUEUEBOX_OUTBOX_POLLINTERVALMS":                   "60000",
			"QUEUEBOX_OUTBOX_CAPTURE_MODE":                     "postgres-logical",
			"QUEUEBOX_OUTBOX_CAPTURE_SLOT":                     slot,
			"QUEUEBOX_OUTBOX_CAPTURE_PUBLICATION":              "qbbench_pub",
			"QUEUEBOX_OUTBOX_CAPTURE_RECONCILIATIONINTERVALMS": "1000",
		})
		cp, err := startBinary(ctx, b.o.binDir, "capture", merge(env, map[string]string{
			"QUEUEBOX_OUTBOX_CAPTURE_ENABLED": "true", "QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY": dir}))
		if err != nil {
			return err
		}
		procs = append(procs, cp)
		if err := waitCaptureUp(ctx, cp); err != nil {
			return err
		}
	}
	dp, err := startBinary(ctx, b.o.binDir, "deliver", env)
	if err != nil {
		return err
	}
	procs = append(procs, dp)
	for _, r := range captureRates {
		if err := b.captureLatency(ctx, db, mode, r); err != nil {
			return err
		}
	}
	if on {
		return b.slotLagAfterBurst(ctx, db)
	}
	return nil
}

// captureLatency inserts rows at rate for a few seconds, one autocommit
// insert each, and reports the commit-to-delivery p50 and p99.
func (b *bench) captureLatency(ctx context.Context, db *benchDB, mode string, rate int) error {
	const tick = 10 * time.Millisecond
	rows := max(50, rate*3)
	topic := fmt.Sprintf("bench.r%d", rate)
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for sent := 0; sent < rows; {
		due := min(rows, int(time.Since(start)*time.Duration(rate)/time.Second)+1)
		for ; sent < due; sent++ {
			if err := db.exec(ctx, `INSERT INTO outbox (topic, payload, created_at) VALUES ($1, '{}', clock_timestamp())`, topic); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	achieved := float64(rows) / time.Since(start).Seconds()
	deadline := time.Now().Add(b.o.drainTimeout)
	var p50, p99 float64
	for {
		var left int64
		err := db.Store.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state <> 'sent'),
			COALESCE(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)), 0) * 1000,
			COALESCE(percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)), 0) * 1000
			FROM outbox WHERE topic = $1`, topic).Scan(&left, &p50, &p99)
		if err != nil {
			return err
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d rows at %d rows/s not sent within %s", left, rows, rate, b.o.drainTimeout)
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	logf("%s, %d rows/s (achieved %.0f): commit to delivery p50 %.1f ms, p99 %.1f ms over %d rows", mode, rate, achieved, p50, p99, rows)
	label := fmt.Sprintf("commit→delivery p50, %s, %s rows/s", mode, group(int64(rate)))
	notes := fmt.Sprintf("p99 %.1f ms over %d rows, achieved %.0f rows/s", p99, rows, achieved)
	if mode == "capture" && rate == 100 {
		b.rep.add(below(label, p50, 10, notes))
		b.rep.add(below(fmt.Sprintf("commit→delivery p99, %s, %d rows/s", mode, rate), p99, 50, fmt.Sprintf("p50 %.1f ms", p50)))
		return nil
	}
	b.rep.add(row{Scenario: label, Measured: fmt.Sprintf("%.1f ms", p50), Baseline: "-", Ratio: "-", Target: "-",
		Result: resultInfo, Notes: notes})
	return nil
}

// slotLagAfterBurst inserts 100,000 rows in batches of 1,000 and waits
// until the slot's confirmed position is within 1 MB of the WAL end.
func (b *bench) slotLagAfterBurst(ctx context.Context, db *benchDB) error {
	const total, batch = 100_000, 1_000
	start := time.Now()
	for n := 0; n < total; n += batch {
		if err := db.exec(ctx, `INSERT INTO outbox (topic, payload) SELECT 'bench.burst', '{}' FROM generate_series(1, $1)`, batch); err != nil {
			return err
		}
	}
	inserted := time.Since(start)
	var peak, lag int64
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := db.Store.Pool.QueryRow(ctx, `SELECT COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0)::bigint
			FROM pg_replication_slots WHERE slot_name = $1`, db.Name).Scan(&lag)
		if err != nil {
			return err
		}
		peak = max(peak, lag)
		if lag < 1<<20 || time.Now().After(deadline) {
			break
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	settled := time.Since(start) - inserted
	logf("capture: slot lag after a %d-row burst (inserted in %s): peak seen %.1f MB, now %.1f KB, %s after the burst",
		total, inserted.Round(time.Millisecond), float64(peak)/(1<<20), float64(lag)/1024, settled.Round(time.Millisecond))
	b.rep.add(row{Scenario: "capture slot lag after a 100,000-row burst", Measured: fmt.Sprintf("%.1f KB", float64(lag)/1024),
		Baseline: "-", Ratio: "-", Target: "< 1 MB within 2 min", Result: verdict(lag < 1<<20),
		Notes: fmt.Sprintf("peak seen %.1f MB; settled %s after the burst", float64(peak)/(1<<20), settled.Round(time.Millisecond))})
	return nil
}

// waitCaptureUp waits until the advisory outbox-capture component is up.
func waitCaptureUp(ctx context.Context, p *proc) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(p.url("/health/ready"))
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), `"outbox-capture":{"status":"up"}`) {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("outbox-capture is not up: %s", body)
			}
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// dropBenchSlot drops the scenario's slot: the benchmark may, the
// product never does.
func dropBenchSlot(db *benchDB, slot string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		err := db.srv.exec(ctx, fmt.Sprintf(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '%s'`, slot))
		if err == nil {
			return
		}
		_ = sleepCtx(ctx, 100*time.Millisecond) // the walsender exits asynchronously
	}
	logf("warning: drop replication slot %s", slot)
}
