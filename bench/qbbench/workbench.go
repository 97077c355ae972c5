package main

import (
	"context"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The size of the workbench scenario: the 1,000,000 outbox rows,
// 1 % of them dead, and the number of timed first pages.
const (
	workbenchRows  = 1_000_000
	workbenchCalls = 50
)

// workbench times the admin list's first page of dead outbox rows (50
// rows, newest first, the statement GET /admin/messages?state=dead runs)
// through the workbench store, among 1,000,000 rows of which 1 % are
// dead, beside a baseline measured in the same run on the same pool: the
// bare SQL of that page, as an operator would type it.
func (b *bench) workbench(ctx context.Context) error {
	db, err := b.srv.create(ctx, "workbench", 4)
	if err != nil {
		return err
	}
	defer db.drop()
	err = db.exec(ctx, `
		INSERT INTO outbox (topic, payload, state, last_error)
		SELECT 'bench.event', jsonb_build_object('n', g),
		       CASE WHEN g % 100 = 0 THEN 'dead' ELSE 'sent' END,
		       CASE WHEN g % 100 = 0 THEN 'HTTP 500' END
		FROM generate_series(1, $1::int) AS g
		ORDER BY g`, workbenchRows)
	if err != nil {
		return fmt.Errorf("insert %d outbox rows: %w", workbenchRows, err)
	}
	if err := db.vacuumAnalyze(ctx, "outbox"); err != nil {
		return err
	}
	w, err := postgres.NewWorkbench(db.Store, db.Layout)
	if err != nil {
		return err
	}
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead}}
	page := func() error {
		p, err := w.List(ctx, f, 50, queuebox.Cursor{})
		if err == nil && len(p.Items) != 50 {
			err = fmt.Errorf("the first page holds %d rows, not 50", len(p.Items))
		}
		return err
	}
	bare := func() error {
		rows, err := db.Store.Pool.Query(ctx, `SELECT id, state, topic, key, attempt, max_attempts, last_error,
			created_at, scheduled_at, updated_at, sequence, discarded_at
			FROM outbox WHERE state = 'dead' AND discarded_at IS NULL ORDER BY sequence DESC LIMIT 50`)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	}
	p50, p99, err := timeCalls(page)
	if err != nil {
		return fmt.Errorf("workbench list: %w", err)
	}
	base50, _, err := timeCalls(bare)
	if err != nil {
		return fmt.Errorf("bare SQL: %w", err)
	}
	logf("workbench first dead page: p50 %.2f ms, p99 %.2f ms; bare SQL p50 %.2f ms", ms(p50), ms(p99), ms(base50))
	b.rep.add(below(fmt.Sprintf("admin list, first page of dead rows, %s outbox rows (1 %% dead)", group(workbenchRows)),
		ms(p50), 50, fmt.Sprintf("p99 %.2f ms over %d calls; bare SQL p50 %.2f ms", ms(p99), workbenchCalls, ms(base50))))
	return nil
}

// timeCalls runs call a few times untimed, then workbenchCalls times, and
// returns the p50 and p99.
func timeCalls(call func() error) (p50, p99 time.Duration, err error) {
	var lat []time.Duration
	for i := range claimWarmup + workbenchCalls {
		t0 := time.Now()
		if err := call(); err != nil {
			return 0, 0, err
		}
		if i >= claimWarmup {
			lat = append(lat, time.Since(t0))
		}
	}
	return percentile(lat, 50), percentile(lat, 99), nil
}
