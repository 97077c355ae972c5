package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/relay"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// env is one migrated schema and the settings of the relays a test
// builds on it: the sources orders and payments.
type env struct {
	s        pgtest.Schema
	db       *postgres.DB
	settings *relay.Options // the settings only; newRelay adds the rest
}

func newEnv(t *testing.T) env {
	t.Helper()
	s, db := pgtest.Migrated(t, 10)
	return env{s: s, db: db, settings: &relay.Options{
		PollInterval: 10 * time.Millisecond, BatchSize: 7, ShutdownTimeout: 5 * time.Second,
		Topics: map[string]string{"orders": "{{ source }}.{{eventType}}", "payments": "{{ eventType }}"},
	}}
}

// store is a relay store of e's schema that claims the rows of e's
// sources.
func (e env) store(t *testing.T, lease time.Duration) *postgres.Relay {
	t.Helper()
	store, err := postgres.NewRelay(e.db, schema.New(schema.Postgres, schema.DefaultNames()),
		queuebox.RelayParams{Lease: lease, Sources: slices.Sorted(maps.Keys(e.settings.Topics))})
	require.NoError(t, err)
	return store
}

// newRelay builds a relay with e's settings and the lease on store.
func (e env) newRelay(t *testing.T, lease time.Duration, store relay.Store, m *relay.Metrics) *relay.Relay {
	t.Helper()
	opts := *e.settings
	opts.ClaimTimeout, opts.Store, opts.Metrics, opts.Logger = lease, store, m, quiet()
	r, err := relay.New(opts)
	require.NoError(t, err)
	return r
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// slowForward widens the window between claim and forward, so a claim
// that broke the aggregate rule would show two rows in processing.
type slowForward struct{ *postgres.Relay }

func (s slowForward) Forward(ctx context.Context, p queuebox.ForwardParams) (map[string]bool, error) {
	time.Sleep(time.Duration(rand.IntN(4000)) * time.Microsecond)
	return s.Relay.Forward(ctx, p)
}

func (e env) relay(t *testing.T, lease time.Duration) (*relay.Relay, *relay.Metrics) {
	t.Helper()
	m := relay.NewMetrics(prometheus.NewRegistry())
	return e.newRelay(t, lease, slowForward{e.store(t, lease)}, m), m
}

func insertInbox(t *testing.T, conn *pgx.Conn, source, key, aggregate, eventType, consumption string) {
	t.Helper()
	var agg any
	if aggregate != "" {
		agg = aggregate
	}
	_, err := conn.Exec(context.Background(), `INSERT INTO inbox
		(source, idempotency_key, aggregate_id, event_type, payload, headers, correlation_id, consumption, created_at)
		VALUES ($1, $2::text, $3, $4, jsonb_build_object('key', $2::text), '{"X-Source":"forged","x-tenant":"acme"}', 'corr-' || $2::text, $5, clock_timestamp())`,
		source, key, agg, eventType, consumption)
	require.NoError(t, err)
}

func runFor(t *testing.T, r *relay.Relay) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	return func() {
		cancel()
		require.NoError(t, <-done)
	}
}

func waitForwarded(t *testing.T, conn *pgx.Conn, want int) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE consumption = 'push' AND state = 'processed'`).Scan(&n)
		return err == nil && n == want
	}, 30*time.Second, 20*time.Millisecond)
}

func TestRelayForwardsAPushRowWithTheRelayHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.settings.MaxAttempts = 9
	conn := e.s.Connect(t)
	insertInbox(t, conn, "orders", "evt-1", "order-1", "created", "push")
	insertInbox(t, conn, "orders", "evt-2", "order-1", "created", "pull")
	r, m := e.relay(t, time.Minute)
	stop := runFor(t, r)
	waitForwarded(t, conn, 1)
	stop()

	var topic, key, payload, headers string
	var maxAttempts int
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT topic, key, payload::text, headers::text, max_attempts FROM outbox`).Scan(&topic, &key, &payload, &headers, &maxAttempts))
	require.Equal(t, "orders.created", topic)
	require.Equal(t, "order-1", key)
	require.JSONEq(t, `{"key":"evt-1"}`, payload)
	require.Equal(t, 9, maxAttempts)
	var h map[string]string
	require.NoError(t, json.Unmarshal([]byte(headers), &h))
	var inboxID string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT id::text FROM inbox WHERE idempotency_key = 'evt-1'`).Scan(&inboxID))
	require.Equal(t, map[string]string{
		"x-inbox-id": inboxID, "x-source": "orders", "x-idempotency-key": "evt-1",
		"X-Correlation-Id": "corr-evt-1", "x-tenant": "acme",
	}, h, "the forged X-Source is replaced, other headers stay")
	var pullState string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT state FROM inbox WHERE idempotency_key = 'evt-2'`).Scan(&pullState))
	require.Equal(t, "pending", pullState, "the relay never claims a pull row")
	require.Equal(t, 1.0, testutil.ToFloat64(m.Messages.WithLabelValues("forwarded")))
}

func TestRelayMarksAnEmptyTopicDead(t *testing.T) {
	t.Parallel()
	lastError := relayedDead(t, "payments", "p-1")
	require.Contains(t, lastError, "rendered empty")
}

// TestRelayMarksATopicWithAHoleDead: "{{ source }}.{{eventType}}" with
// no event type would render "orders.", a topic nobody chose; the row goes
// dead with a reason that says what is missing.
func TestRelayMarksATopicWithAHoleDead(t *testing.T) {
	t.Parallel()
	lastError := relayedDead(t, "orders", "o-1")
	require.Contains(t, lastError, "carries no event type")
	require.Contains(t, lastError, `"orders."`)
}

// relayedDead runs a relay over one push row of source without an event
// type, waits for the row to go dead, checks that no outbox row was
// written, and returns the row's last_error.
func relayedDead(t *testing.T, source, key string) string {
	t.Helper()
	e := newEnv(t)
	conn := e.s.Connect(t)
	insertInbox(t, conn, source, key, "", "", "push")
	r, _ := e.relay(t, time.Minute)
	stop := runFor(t, r)
	require.Eventually(t, func() bool {
		var state string
		err := conn.QueryRow(context.Background(), `SELECT state FROM inbox`).Scan(&state)
		return err == nil && state == "dead"
	}, 30*time.Second, 20*time.Millisecond)
	stop()
	var lastError string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT last_error FROM inbox`).Scan(&lastError))
	var outboxRows int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&outboxRows))
	require.Zero(t, outboxRows)
	return lastError
}

// TestTwoRelaysKeepAggregateOrder runs two relays over 50 aggregates and
// two sources while a monitor checks that no aggregate ever has two push
// rows in processing; then every row must be forwarded once, in creation
// order per aggregate.
func TestTwoRelaysKeepAggregateOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conn := e.s.Connect(t)
	const aggregates, perAggregate = 50, 6
	// Rows of one aggregate are inserted together, so every claim meets
	// later rows of aggregates whose head is in flight.
	for a := 0; a < aggregates; a++ {
		for i := 0; i < perAggregate; i++ {
			source := []string{"orders", "payments"}[(i+a)%2]
			insertInbox(t, conn, source, fmt.Sprintf("%s-%d-%d", source, a, i), fmt.Sprintf("agg-%02d", a), "evt", "push")
		}
	}
	for i := 0; i < 10; i++ {
		insertInbox(t, conn, "orders", fmt.Sprintf("free-%d", i), "", "evt", "push")
	}
	total := aggregates*perAggregate + 10

	stopMonitor := monitor(t, e.s, `SELECT aggregate_id FROM inbox WHERE state = 'processing' AND consumption = 'push'
		AND aggregate_id IS NOT NULL GROUP BY aggregate_id HAVING count(*) > 1 LIMIT 1`)
	r1, _ := e.relay(t, time.Minute)
	r2, _ := e.relay(t, time.Minute)
	stop1, stop2 := runFor(t, r1), runFor(t, r2)
	waitForwarded(t, conn, total)
	stop1()
	stop2()
	stopMonitor()

	var outboxRows, distinct int
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT count(*), count(DISTINCT headers->>'x-inbox-id') FROM outbox`).Scan(&outboxRows, &distinct))
	require.Equal(t, total, outboxRows, "every row forwarded")
	require.Equal(t, total, distinct, "no row forwarded twice")
	rows, err := conn.Query(context.Background(), `SELECT o.key FROM outbox o
		JOIN inbox i ON i.id = (o.headers->>'x-inbox-id')::uuid
		WHERE o.key IS NOT NULL
		GROUP BY o.key
		HAVING array_agg(i.created_at ORDER BY o.sequence) <> array_agg(i.created_at ORDER BY i.created_at)`)
	require.NoError(t, err)
	bad, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Empty(t, bad, "aggregates whose outbox sequence breaks creation order")
}

// TestCrashBetweenClaimAndForward leaves a claimed row behind as a crashed
// relay would; the reclaim returns it and a live relay forwards it once.
func TestCrashBetweenClaimAndForward(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conn := e.s.Connect(t)
	insertInbox(t, conn, "orders", "evt-1", "order-1", "created", "push")
	insertInbox(t, conn, "orders", "evt-2", "order-1", "created", "push")
	crashed := e.store(t, 200*time.Millisecond)
	claimed, err := crashed.Claim(context.Background(), 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1, "one row of the aggregate")
	// The crashed relay never forwards. A live relay with a short lease
	// reclaims the row after it expires.
	r, _ := e.relay(t, 200*time.Millisecond)
	stop := runFor(t, r)
	waitForwarded(t, conn, 2)
	stop()
	kept, err := crashed.Forward(context.Background(), queuebox.ForwardParams{
		Rows: []queuebox.Forward{{Lease: claimed[0].Lease(), Topic: "late", Headers: []byte(`{}`)}}, MaxAttempts: 5})
	require.NoError(t, err)
	require.Empty(t, kept, "the crashed owner's late forward fails the fence")
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&n))
	require.Equal(t, 2, n, "no duplicate outbox row")
}

func monitor(t *testing.T, s pgtest.Schema, violation string) func() {
	t.Helper()
	conn := s.Connect(t)
	stop := make(chan struct{})
	done := make(chan int)
	var once sync.Once
	go func() {
		checks := 0
		for {
			select {
			case <-stop:
				done <- checks
				return
			default:
			}
			var bad string
			err := conn.QueryRow(context.Background(), violation).Scan(&bad)
			if err == nil {
				t.Errorf("invariant broken for %s", bad)
			} else if err != pgx.ErrNoRows {
				t.Error(err)
			}
			checks++
		}
	}()
	return func() {
		once.Do(func() { close(stop) })
		require.Positive(t, <-done)
	}
}

// A row of a source this relay is not configured with (ingest learned of
// the source first, during a rolling change) stays pending, untouched, and
// holds back the later rows of its aggregate; rows of known sources go on.
func TestRelayLeavesRowsOfAnUnknownSourcePending(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conn := e.s.Connect(t)
	insertInbox(t, conn, "newcomer", "evt-1", "order-1", "created", "push")
	insertInbox(t, conn, "orders", "evt-2", "order-1", "created", "push")
	insertInbox(t, conn, "orders", "evt-3", "order-2", "created", "push")
	r, _ := e.relay(t, time.Minute)
	stop := runFor(t, r)
	waitForwarded(t, conn, 1)
	stop()

	states := map[string]string{}
	rows, err := conn.Query(context.Background(), `SELECT idempotency_key, state FROM inbox`)
	require.NoError(t, err)
	for rows.Next() {
		var key, state string
		require.NoError(t, rows.Scan(&key, &state))
		states[key] = state
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{"evt-1": "pending", "evt-2": "pending", "evt-3": "processed"}, states)
	var attempts int
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT count(*) FROM inbox WHERE idempotency_key = 'evt-1' AND claim_token IS NULL AND last_error IS NULL`).Scan(&attempts))
	require.Equal(t, 1, attempts, "the unknown source's row was never claimed")
}
