package pgtest_test

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	queuebox "github.com/alternayte/queuebox/clients/go"
)

// Four workers of concurrency four on each of two sources, over thirty
// aggregates: never two rows of one (source, aggregate) in flight, the
// same aggregate running on both sources at once, and every row
// processed exactly once.
func TestWorkersKeepOneRowPerSourceAndAggregateInFlight(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	db.SetMaxOpenConns(40)
	mustExec(t, db, `CREATE TABLE done (source TEXT, key TEXT, PRIMARY KEY (source, key))`)
	const aggs, perAgg = 30, 6
	sources := []string{"orders", "payments"}
	for _, s := range sources {
		mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, created_at)
			SELECT $1, 'm-' || g, 'agg-' || (g % $2), '{}', 'pull', now() + g * interval '1 microsecond'
			FROM generate_series(0, $3 - 1) g`, s, aggs, aggs*perAgg)
		mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, consumption)
			SELECT $1, 'free-' || g, '{}', 'pull' FROM generate_series(1, 20) g`, s)
	}
	total := len(sources) * (aggs*perAgg + 20)

	var mu sync.Mutex
	inFlight := map[string]bool{}
	var violations, handled atomic.Int64
	// agg-0's first rows on the two sources wait for each other: they can
	// meet only if the two sources run the aggregate side by side.
	meet := map[string]chan struct{}{"orders": make(chan struct{}), "payments": make(chan struct{})}
	// A row can be handled twice (a lease that runs out under a slow
	// machine); its source's channel closes once.
	arrived := map[string]*sync.Once{"orders": {}, "payments": {}}
	var met atomic.Int64
	handler := func(source string) queuebox.Handler {
		return func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			if m.AggregateID != nil {
				k := source + "/" + *m.AggregateID
				mu.Lock()
				if inFlight[k] {
					violations.Add(1)
				}
				inFlight[k] = true
				mu.Unlock()
				defer func() { mu.Lock(); delete(inFlight, k); mu.Unlock() }()
				if *m.AggregateID == "agg-0" && m.IdempotencyKey == "m-0" {
					other := "payments"
					if source == "payments" {
						other = "orders"
					}
					arrived[source].Do(func() { close(meet[source]) })
					select {
					case <-meet[other]:
						met.Add(1)
					case <-time.After(time.Minute):
					case <-ctx.Done():
					}
				}
			}
			if _, err := tx.ExecContext(ctx, `SELECT pg_sleep(0.002)`); err != nil {
				return err
			}
			handled.Add(1)
			_, err := tx.ExecContext(ctx, `INSERT INTO done (source, key) VALUES ($1, $2)`, source, m.IdempotencyKey)
			return err
		}
	}
	for _, s := range sources {
		for range 4 {
			runWorker(t, db, queuebox.Options{Source: s, MaxConcurrency: 4, BatchSize: 10, PollInterval: 20 * time.Millisecond}, handler(s))
		}
	}

	// The monitor reads the table while the workers run.
	stopMonitor := make(chan struct{})
	monitorDone := make(chan int)
	go func() {
		bad := 0
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopMonitor:
				monitorDone <- bad
				return
			case <-tick.C:
			}
			var n int
			err := db.QueryRow(`SELECT count(*) FROM (SELECT source, aggregate_id FROM inbox
				WHERE state = 'processing' AND lease_expires_at > now() AND aggregate_id IS NOT NULL
				GROUP BY source, aggregate_id HAVING count(*) > 1) x`).Scan(&n)
			if err == nil {
				bad += n
			}
		}
	}()
	eventually(t, "every row processed", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM inbox WHERE state = 'processed'`) == total
	})
	close(stopMonitor)
	if bad := <-monitorDone; bad != 0 {
		t.Errorf("the monitor saw %d aggregates with two rows in flight", bad)
	}
	if v := violations.Load(); v != 0 {
		t.Errorf("%d handlers started beside a running row of their aggregate", v)
	}
	if met.Load() != 2 {
		t.Error("aggregate agg-0 did not run on both sources at once")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM done`); n != total {
		t.Errorf("%d business rows for %d messages", n, total)
	}
	if h := handled.Load(); h != int64(total) {
		t.Errorf("%d handler runs for %d messages: a row ran twice", h, total)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM inbox WHERE attempt <> 0`); n != 0 {
		t.Errorf("%d rows spent an attempt", n)
	}
}
