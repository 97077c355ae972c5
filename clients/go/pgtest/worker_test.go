package pgtest_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	queuebox "github.com/alternayte/queuebox/clients/go"
)

// runWorker runs a worker until the test ends or stop is called; stop
// waits for Run to return and reports its error.
func runWorker(t *testing.T, db *sql.DB, o queuebox.Options, h queuebox.Handler) (stop func() error) {
	t.Helper()
	w, err := queuebox.NewInboxWorker(db, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, h) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(2 * time.Minute):
				runErr = errors.New("Run did not return")
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func stateOf(t *testing.T, db *sql.DB, id string) (state string, attempt int, lastError sql.NullString) {
	t.Helper()
	err := db.QueryRow(`SELECT state, attempt, last_error FROM inbox WHERE id = $1`, id).Scan(&state, &attempt, &lastError)
	if err != nil {
		t.Fatal(err)
	}
	return
}

func ordersTable(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db, `CREATE TABLE orders (id TEXT PRIMARY KEY, total INTEGER NOT NULL, by_worker TEXT)`)
}

func insertOrder(ctx context.Context, m queuebox.Message, tx *sql.Tx, worker string) error {
	var order struct {
		ID    string `json:"id"`
		Total int    `json:"total"`
	}
	if err := m.UnmarshalPayload(&order); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO orders (id, total, by_worker) VALUES ($1, $2, $3)`, order.ID, order.Total, worker)
	return err
}

func TestTheBusinessRowAndTheCompletionCommitTogether(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	ordersTable(t, db)
	ok := insertPull(t, db, "orders", "order-1", "customer-1", `{"id":"order-1","total":42}`)
	mustExec(t, db, `UPDATE inbox SET headers = '{"X-Trace":"t1"}', event_type = 'order.created', correlation_id = 'c-1' WHERE id = $1`, ok)
	bad := insertPull(t, db, "orders", "order-2", "customer-2", `{"id":"order-2","total":17}`)
	seen := make(chan queuebox.Message, 4)
	runWorker(t, db, queuebox.Options{Source: "orders", PollInterval: 20 * time.Millisecond},
		func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			seen <- m
			if err := insertOrder(ctx, m, tx, "w"); err != nil {
				return err
			}
			if m.IdempotencyKey == "order-2" {
				return errors.New("the payment service said no")
			}
			return nil
		})
	eventually(t, "both rows handled", func() bool {
		s1, _, _ := stateOf(t, db, ok)
		_, a2, _ := stateOf(t, db, bad)
		return s1 == "processed" && a2 == 1
	})
	if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE id = 'order-1'`); n != 1 {
		t.Errorf("order-1 rows: %d", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE id = 'order-2'`); n != 0 {
		t.Errorf("the failed handler's write committed")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM inbox WHERE id = $1 AND claim_token IS NULL AND lease_expires_at IS NULL AND processed_at IS NOT NULL`, ok); n != 1 {
		t.Error("the completion did not clear the token and the lease")
	}
	first := <-seen
	if first.IdempotencyKey != "order-1" {
		first = <-seen
	}
	if first.Source != "orders" || first.Attempt != 0 || *first.AggregateID != "customer-1" || *first.EventType != "order.created" ||
		*first.CorrelationID != "c-1" || first.Headers["X-Trace"] != "t1" || first.ID != ok {
		t.Errorf("message fields: %+v", first)
	}
}

func TestARetrySetsTheAttemptAndTheSchedule(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	id := insertPull(t, db, "orders", "k", nil, `{}`)
	policy := queuebox.RetryPolicyFunc(func(queuebox.Message, error) queuebox.FailureAction {
		return queuebox.RetryAfter(time.Hour)
	})
	runWorker(t, db, queuebox.Options{Source: "orders", PollInterval: 20 * time.Millisecond, RetryPolicy: policy},
		func(context.Context, queuebox.Message, *sql.Tx) error {
			return errors.New(`upstream 500: {"token": "abc123"}`)
		})
	eventually(t, "the retry", func() bool { _, a, _ := stateOf(t, db, id); return a == 1 })
	state, _, lastError := stateOf(t, db, id)
	if state != "pending" || lastError.String != `upstream 500: {"token": "***"}` {
		t.Errorf("state %s, last_error %q", state, lastError.String)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM inbox WHERE id = $1 AND scheduled_at > now() + interval '50 minutes'
		AND claim_token IS NULL AND lease_expires_at IS NULL`, id); n != 1 {
		t.Error("scheduled_at is not an hour ahead, or the token and the lease stayed")
	}
}

func TestTheRowIsDeadAfterThePolicysCeiling(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	id := insertPull(t, db, "orders", "k", "a", `{}`)
	var mu sync.Mutex
	var attempts []int
	runWorker(t, db, queuebox.Options{Source: "orders", PollInterval: 10 * time.Millisecond,
		RetryPolicy: queuebox.NewDefaultRetryPolicy(2, time.Millisecond, time.Millisecond, 0.2)},
		func(_ context.Context, m queuebox.Message, _ *sql.Tx) error {
			mu.Lock()
			attempts = append(attempts, m.Attempt)
			mu.Unlock()
			return errors.New("connect to postgres://app:pa55word@db/x failed: password=pa55word")
		})
	eventually(t, "the dead letter", func() bool { s, _, _ := stateOf(t, db, id); return s == "dead" })
	_, attempt, lastError := stateOf(t, db, id)
	mu.Lock()
	defer mu.Unlock()
	if attempt != 2 || len(attempts) != 3 || attempts[2] != 2 {
		t.Errorf("attempt %d after deliveries %v", attempt, attempts)
	}
	if strings.Contains(lastError.String, "pa55word") || !strings.Contains(lastError.String, "password=***") {
		t.Errorf("last_error not redacted: %q", lastError.String)
	}
}

// A lease that ran out under a slow handler (a pause that the renewals
// could not cover, made here by moving the lease into the past): a second
// worker takes the row, and the first worker's completion changes no row
// and rolls its business write back.
func TestACompletionAfterTheLeaseWasLostRollsTheWritesBack(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	ordersTable(t, db)
	id := insertPull(t, db, "orders", "order-1", "customer-1", `{"id":"order-1","total":1}`)
	started, release := make(chan struct{}), make(chan struct{})
	stopFirst := runWorker(t, db, queuebox.Options{Source: "orders", LeaseMS: 600_000, PollInterval: 20 * time.Millisecond},
		func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			if err := insertOrder(ctx, m, tx, "first"); err != nil {
				return err
			}
			close(started)
			<-release
			return nil
		})
	<-started
	mustExec(t, db, `UPDATE inbox SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, id)
	stopSecond := runWorker(t, db, queuebox.Options{Source: "orders", PollInterval: 20 * time.Millisecond},
		func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			if m.Attempt != 0 {
				t.Errorf("the second delivery is attempt %d", m.Attempt)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO orders (id, total, by_worker) VALUES ('second-' || $1, 1, 'second')`, m.ID)
			return err
		})
	eventually(t, "the second worker's completion", func() bool { s, _, _ := stateOf(t, db, id); return s == "processed" })
	if err := stopSecond(); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := stopFirst(); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE by_worker = 'first'`); n != 0 {
		t.Error("the first worker's write committed after it lost the lease")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE by_worker = 'second'`); n != 1 {
		t.Errorf("the second worker's writes: %d", n)
	}
	if _, attempt, _ := stateOf(t, db, id); attempt != 0 {
		t.Errorf("attempt %d: a lost lease spends no attempt", attempt)
	}
}

// A renewal that finds another owner cancels the handler's context.
func TestALostRenewalCancelsTheHandler(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	ordersTable(t, db)
	id := insertPull(t, db, "orders", "order-1", nil, `{"id":"order-1","total":1}`)
	started, cancelled := make(chan struct{}), make(chan error, 1)
	runWorker(t, db, queuebox.Options{Source: "orders", LeaseMS: 600, PollInterval: 20 * time.Millisecond},
		func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			if err := insertOrder(ctx, m, tx, "first"); err != nil {
				return err
			}
			close(started)
			<-ctx.Done()
			cancelled <- context.Cause(ctx)
			return ctx.Err()
		})
	<-started
	// Another worker's claim: a new token.
	mustExec(t, db, `UPDATE inbox SET claim_token = gen_random_uuid() WHERE id = $1`, id)
	select {
	case cause := <-cancelled:
		if cause == nil || !strings.Contains(cause.Error(), "lease") {
			t.Errorf("cause %v", cause)
		}
	case <-time.After(time.Minute):
		t.Fatal("the handler was not cancelled")
	}
	eventually(t, "the rollback", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND application_name = current_schema() AND query LIKE '%orders%'`) == 0
	})
	if n := queryInt(t, db, `SELECT count(*) FROM orders`); n != 0 {
		t.Error("the write of a handler that lost its lease committed")
	}
	if s, a, _ := stateOf(t, db, id); s != "processing" || a != 0 {
		t.Errorf("state %s attempt %d", s, a)
	}
}

func TestAShutdownPastTheGraceCancelsTheHandlerAndCompletesNothing(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	ordersTable(t, db)
	id := insertPull(t, db, "orders", "order-1", nil, `{"id":"order-1","total":1}`)
	var token string
	started := make(chan struct{})
	stop := runWorker(t, db, queuebox.Options{Source: "orders", ShutdownGrace: 200 * time.Millisecond, PollInterval: 20 * time.Millisecond},
		func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			if err := insertOrder(ctx, m, tx, "w"); err != nil {
				return err
			}
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
	<-started
	if err := db.QueryRow(`SELECT claim_token::text FROM inbox WHERE id = $1`, id).Scan(&token); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	s, attempt, lastError := stateOf(t, db, id)
	if s != "processing" || attempt != 0 || lastError.Valid {
		t.Errorf("after the shutdown: state %s attempt %d last_error %v", s, attempt, lastError)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM inbox WHERE id = $1 AND claim_token = $2::uuid`, id, token); n != 1 {
		t.Error("the claim changed at shutdown")
	}
	eventually(t, "the rollback", func() bool { return queryInt(t, db, `SELECT count(*) FROM orders`) == 0 })
}

func TestAShutdownLetsARunningHandlerFinishWithinTheGrace(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	id := insertPull(t, db, "orders", "k", nil, `{}`)
	started, release := make(chan struct{}), make(chan struct{})
	stop := runWorker(t, db, queuebox.Options{Source: "orders", ShutdownGrace: 2 * time.Minute, PollInterval: 20 * time.Millisecond},
		func(ctx context.Context, _ queuebox.Message, _ *sql.Tx) error {
			close(started)
			<-release
			return ctx.Err()
		})
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(release)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if s, _, _ := stateOf(t, db, id); s != "processed" {
		t.Errorf("state %s", s)
	}
}

func TestAMappedSchema(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	mustExec(t, db, `ALTER TABLE inbox RENAME TO qb_inbox; ALTER TABLE qb_inbox RENAME COLUMN idempotency_key TO dedup_key`)
	mustExec(t, db, `INSERT INTO qb_inbox (source, dedup_key, payload, consumption) VALUES ('orders', 'k1', '{}', 'pull')`)
	schema := queuebox.DefaultSchema()
	schema.Table = "qb_inbox"
	schema.IdempotencyKey = "dedup_key"
	got := make(chan string, 1)
	runWorker(t, db, queuebox.Options{Source: "orders", Schema: &schema, PollInterval: 20 * time.Millisecond},
		func(_ context.Context, m queuebox.Message, _ *sql.Tx) error { got <- m.IdempotencyKey; return nil })
	if k := <-got; k != "k1" {
		t.Errorf("key %q", k)
	}
	eventually(t, "the completion", func() bool {
		return queryInt(t, db, `SELECT count(*) FROM qb_inbox WHERE state = 'processed'`) == 1
	})
}

// A worker whose every handler slot is busy claims nothing: the row it
// could not start would sit under its lease while another worker, with a
// free slot, waits for it.
func TestABusyWorkerLeavesTheNextRowToAFreeOne(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	first := insertPull(t, db, "orders", "order-1", "customer-1", `{"id":"order-1","total":1}`)
	second := insertPull(t, db, "orders", "order-2", "customer-2", `{"id":"order-2","total":2}`)
	started, release := make(chan struct{}), make(chan struct{})
	stopBusy := runWorker(t, db, queuebox.Options{Source: "orders", BatchSize: 1, MaxConcurrency: 1,
		PollInterval: 5 * time.Millisecond},
		func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
			if m.ID == first {
				close(started)
				<-release
			}
			return nil
		})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the workers stop, also when the test fails
	<-started
	runWorker(t, db, queuebox.Options{Source: "orders", PollInterval: 20 * time.Millisecond},
		func(context.Context, queuebox.Message, *sql.Tx) error { return nil })
	eventually(t, "the free worker's completion of the second row", func() bool {
		s, _, _ := stateOf(t, db, second)
		return s == "processed"
	})
	free()
	if err := stopBusy(); err != nil {
		t.Fatal(err)
	}
}
