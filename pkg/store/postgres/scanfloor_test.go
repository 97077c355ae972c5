package postgres_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/scanfloor"
)

// holdSnapshot opens a transaction that keeps its snapshot until the test
// ends, as an idle application transaction does: no row version that
// ended after it began can be removed, nor its index entries marked dead.
func holdSnapshot(t *testing.T, db *postgres.DB) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Pool.Acquire(ctx)
	require.NoError(t, err)
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "SELECT 1")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = tx.Rollback(ctx)
		conn.Release()
	})
}

// explainBuffers runs EXPLAIN (ANALYZE, BUFFERS) of a claim or the routing
// scan, stmt, in a transaction begun as the store begins it
// (postgres.ClaimBegin) that rolls back, and returns the rows it returned
// and the buffers it read.
func explainBuffers(t *testing.T, db *postgres.DB, stmt string, args ...any) (rows, buffers float64) {
	t.Helper()
	var doc []struct {
		Plan struct {
			Rows float64 `json:"Actual Rows"`
			Hit  float64 `json:"Shared Hit Blocks"`
			Read float64 `json:"Shared Read Blocks"`
		} `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal(explainJSON(t, db, postgres.ClaimBegin, "ANALYZE, BUFFERS, FORMAT JSON", stmt, args...), &doc))
	return doc[0].Plan.Rows, doc[0].Plan.Hit + doc[0].Plan.Read
}

// Under a transaction older than them, the index entries of rows claimed
// and finished stay in the partial index of pending rows, and a scan from
// its start steps over every one. A scan from the floor starts among the
// rows still waiting: the claim's cost no longer follows the rows
// delivered since that transaction began.
func TestBoundedScansSkipTheEntriesAnOldSnapshotKeeps(t *testing.T) {
	t.Parallel()
	db, l := boundSchema(t)
	holdSnapshot(t, db)
	const gone = 20_000
	// Their times are shuffled against the order they were written in, as
	// the rows of many writers are, so that each entry the scan steps over
	// costs it a buffer and the count shows the difference.
	exec(t, db, `INSERT INTO outbox (topic, payload, scheduled_at)
		SELECT 't', '{}', now() - interval '1 hour' * (1 + random()) FROM generate_series(1, $1)`, gone)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, consumption, created_at)
		SELECT 'bench', 'gone-' || g, '{}', 'push', now() - interval '1 hour' * (1 + random())
		FROM generate_series(1, $1) g`, gone)
	exec(t, db, `UPDATE outbox SET state = 'sent'`)
	exec(t, db, `UPDATE inbox SET state = 'processed'`)
	exec(t, db, `INSERT INTO outbox (topic, payload) SELECT 't', '{}' FROM generate_series(1, $1)`, boundBatch)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, consumption)
		SELECT 'bench', 'new-' || g, '{}', 'push' FROM generate_series(1, $1) g`, boundBatch)
	bound := time.Now().Add(-scanfloor.Slack)

	claim, err := postgres.RenderClaim("outbox_claim", l, false)
	require.NoError(t, err)
	relay, err := postgres.RenderClaim("inbox_relay_claim", l, false)
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		run  func(bound *time.Time) (float64, float64)
	}{
		{"outbox", func(b *time.Time) (float64, float64) {
			return explainBuffers(t, db, claim, boundBatch, "", 60_000, nil, "", b, nil, nil, nil, nil, nil)
		}},
		{"relay", func(b *time.Time) (float64, float64) {
			return explainBuffers(t, db, relay, boundBatch, 60_000, []string{"bench"}, nil, "", b, nil, nil, nil, nil)
		}},
	} {
		fullRows, full := c.run(nil)
		rows, bounded := c.run(&bound)
		require.Equal(t, float64(boundBatch), fullRows, "%s: the full scan claims the waiting rows", c.name)
		require.Equal(t, float64(boundBatch), rows, "%s: the bounded scan claims the same rows", c.name)
		require.Less(t, bounded*5, full, "%s: buffers of the bounded scan (%v) against the full one (%v)", c.name, bounded, full)
	}
}

// The floor is a hint: a row below it (one written long before it was
// committed, or given back by a reclaim with its old time) is found by the
// check that the store runs beside its claims, which lowers the floor,
// and a reclaim makes the very next scan a full one. No claim but those
// reads from the start: the store's clock (WithClock), on which the floor
// schedules its checks, moves here only when the test moves it.
func TestClaimFloorLeavesNoRowBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, l := boundSchema(t)
	var clock atomic.Pointer[time.Time]
	set := func(at time.Time) { clock.Store(&at) }
	t0 := time.Now().Add(time.Minute)
	set(t0)
	ob, err := postgres.NewOutbox(db, l.WithoutLedger(), 100*time.Millisecond,
		postgres.WithClock(func() time.Time { return *clock.Load() }))
	require.NoError(t, err)
	insert := func(payload, age string) {
		exec(t, db, `INSERT INTO outbox (topic, payload, scheduled_at) VALUES ('t', $1, now() - $2::interval)`, payload, age)
	}
	claimed := func() []string {
		msgs, err := ob.Claim(ctx, boundBatch)
		require.NoError(t, err)
		var out []string
		for _, m := range msgs {
			out = append(out, string(m.Payload))
		}
		return out
	}

	insert(`{"row":"a"}`, "0")
	require.Equal(t, []string{`{"row":"a"}`}, claimed(), "the first claim is a full scan")
	insert(`{"row":"b"}`, "1 hour")
	require.Empty(t, claimed(), "a row far below the floor is not in a bounded scan")
	// The claim above started a check; the floor is lowered when it ends,
	// and the checks come again MinFullEvery apart on the store's clock.
	require.Eventually(t, func() bool {
		set(clock.Load().Add(scanfloor.MinFullEvery))
		return slices.Contains(claimed(), `{"row":"b"}`)
	}, time.Minute, 10*time.Millisecond, "the check beside the claims finds b, and a claim takes it")

	insert(`{"row":"c"}`, "0")
	require.Equal(t, []string{`{"row":"c"}`}, claimed(), "a bounded scan takes c")
	set(clock.Load().Add(time.Hour))
	n, err := ob.Reclaim(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "every lease ended")
	require.Contains(t, claimed(), `{"row":"b"}`, "the claim after a reclaim is a full scan")
}

// The routing of keyed rows reads idx_outbox_unrouted lowest sequence
// first, and under an old transaction the entries of every row routed
// since stay at its front. A scan from the floor starts a little below
// the rows still waiting for their destination.
func TestBoundedRoutingScanSkipsTheRowsRoutedBefore(t *testing.T) {
	t.Parallel()
	db, l := boundSchema(t)
	holdSnapshot(t, db)
	const gone = 30 * scanfloor.SeqSlack
	exec(t, db, `INSERT INTO outbox (topic, key, payload) SELECT 't', 'k-' || (g % 100), '{}'
		FROM generate_series(1, $1) g`, gone)
	exec(t, db, `UPDATE outbox SET destination = 'd'`)
	exec(t, db, `INSERT INTO outbox (topic, key, payload) SELECT 't', 'k-' || (g % 100), '{}'
		FROM generate_series(1, $1) g`, boundBatch)
	var first int64
	require.NoError(t, db.Pool.QueryRow(context.Background(),
		`SELECT min(sequence) FROM outbox WHERE destination = ''`).Scan(&first))
	bound := first - scanfloor.SeqSlack

	stmt, err := postgres.Render("outbox_unrouted", l)
	require.NoError(t, err)
	fullRows, full := explainBuffers(t, db, stmt, boundBatch, nil)
	rows, bounded := explainBuffers(t, db, stmt, boundBatch, bound)
	require.Equal(t, float64(boundBatch), fullRows, "the full scan reads the waiting rows")
	require.Equal(t, float64(boundBatch), rows, "the bounded scan reads the same rows")
	require.Less(t, bounded*5, full, "buffers of the bounded scan (%v) against the full one (%v)", bounded, full)
}
