package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// The claim statements must cost what their batch and the keys or
// aggregates they pass cost, not what the backlog behind them holds, on
// any plan the planner may pick: on statistics taken while the table was
// empty (what a table has after a burst, until autovacuum analyzes it) as
// well as on fresh ones. The tests count the rows every scan of the plan
// touched (returned or filtered out, times its loops) with EXPLAIN
// ANALYZE: a count, not a time, so a busy machine changes nothing.

const boundBatch = 100

// claimBound is the most rows one claim of boundBatch rows may touch,
// besides the rows in flight: a plan may read every processing row once
// (a hashed "is this aggregate busy" check), and those are bounded by the
// replicas times their batches, not by the backlog.
const claimBound = 20 * boundBatch

// explainCost runs EXPLAIN (ANALYZE, FORMAT JSON) of stmt in a transaction
// that rolls back and returns the rows its scans touched and the rows the
// statement returned.
func explainCost(t *testing.T, db *postgres.DB, stmt string, args ...any) (touched, returned float64, scans []string) {
	t.Helper()
	root := explainPlan(t, db, stmt, args...)
	return root.touched(), root.Rows, root.scans(nil)
}

// explainPlan runs EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of a claim (or the
// routing scan) stmt in a transaction begun as the store begins it
// (postgres.ClaimBegin) that rolls back, and returns the root of its plan.
func explainPlan(t *testing.T, db *postgres.DB, stmt string, args ...any) planNode {
	t.Helper()
	return explainPlanIn(t, db, postgres.ClaimBegin, stmt, args...)
}

// explainPlanIn is explainPlan in a transaction begun with begin.
func explainPlanIn(t *testing.T, db *postgres.DB, begin, stmt string, args ...any) planNode {
	t.Helper()
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal(explainJSON(t, db, begin, "ANALYZE, BUFFERS, FORMAT JSON", stmt, args...), &doc))
	return doc[0].Plan
}

// explainJSON runs EXPLAIN (options) of stmt, whose options include
// FORMAT JSON, in a transaction begun with begin that rolls back, and
// returns the plan.
func explainJSON(t *testing.T, db *postgres.DB, begin, options, stmt string, args ...any) []byte {
	t.Helper()
	var plan []byte
	inRolledBackTx(t, db, begin, func(ctx context.Context, tx pgx.Tx) error {
		return tx.QueryRow(ctx, "EXPLAIN ("+options+") "+stmt, args...).Scan(&plan)
	})
	return plan
}

// inRolledBackTx runs fn in a transaction begun with begin and rolls it
// back, so a claim's updates leave the table as it was; fn's error fails
// the test.
func inRolledBackTx(t *testing.T, db *postgres.DB, begin string, fn func(context.Context, pgx.Tx) error) {
	t.Helper()
	ctx := context.Background()
	errRollback := errors.New("rollback")
	err := pgx.BeginTxFunc(ctx, db.Pool, pgx.TxOptions{BeginQuery: begin}, func(tx pgx.Tx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		return errRollback
	})
	require.ErrorIs(t, err, errRollback)
}

type planNode struct {
	Type            string     `json:"Node Type"`
	Index           string     `json:"Index Name"`
	Relation        string     `json:"Relation Name"`
	Subplan         string     `json:"Subplan Name"`
	Rows            float64    `json:"Actual Rows"`
	Loops           float64    `json:"Actual Loops"`
	RemovedByFilter float64    `json:"Rows Removed by Filter"`
	RemovedByCheck  float64    `json:"Rows Removed by Index Recheck"`
	Hit             float64    `json:"Shared Hit Blocks"`
	Read            float64    `json:"Shared Read Blocks"`
	Plans           []planNode `json:"Plans"`
}

// buffersOf sums the buffers that the tree's scans of index read (with
// their heap visits).
func (n planNode) buffersOf(index string) float64 {
	var sum float64
	if n.Index == index {
		sum = n.Hit + n.Read
	}
	for _, c := range n.Plans {
		sum += c.buffersOf(index)
	}
	return sum
}

// scans lists the scans of the tree with the rows each touched, for the
// failure message.
func (n planNode) scans(out []string) []string {
	if t := n.self(); t > 0 {
		out = append(out, fmt.Sprintf("%s %s: %.0f", n.Type, n.Index, t))
	}
	for _, c := range n.Plans {
		out = c.scans(out)
	}
	return out
}

func (n planNode) self() float64 {
	switch n.Type {
	case "Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan":
		return (n.Rows + n.RemovedByFilter + n.RemovedByCheck) * n.Loops
	}
	return 0
}

// ranScans lists the scans of the tree that ran, as "relation index",
// leaving out the subplans named in skip.
func (n planNode) ranScans(out []string, skip ...string) []string {
	if slices.Contains(skip, n.Subplan) {
		return out
	}
	if n.Relation != "" && n.Loops > 0 {
		out = append(out, n.Relation+" "+n.Index)
	}
	for _, c := range n.Plans {
		out = c.ranScans(out, skip...)
	}
	return out
}

// touched sums the rows that the scans of the tree read.
func (n planNode) touched() float64 {
	sum := n.self()
	for _, c := range n.Plans {
		sum += c.touched()
	}
	return sum
}

// boundSchema is a migrated schema whose tables autovacuum leaves alone,
// analyzed while empty: its statistics predate any backlog a test adds.
func boundSchema(t *testing.T) (*postgres.DB, schema.Layout) {
	t.Helper()
	s, db := pgtest.Migrated(t, 2)
	conn := s.Connect(t)
	_, err := conn.Exec(context.Background(), `ALTER TABLE inbox SET (autovacuum_enabled = false);
		ALTER TABLE outbox SET (autovacuum_enabled = false); ANALYZE inbox; ANALYZE outbox`)
	require.NoError(t, err)
	return db, schema.New(schema.Postgres, schema.DefaultNames())
}

func exec(t *testing.T, db *postgres.DB, sql string, args ...any) {
	t.Helper()
	_, err := db.Pool.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

func analyzeUnlessStale(t *testing.T, db *postgres.DB, stale bool, table string) {
	t.Helper()
	if !stale {
		_, err := db.Pool.Exec(context.Background(), "ANALYZE "+table)
		require.NoError(t, err)
	}
}

// relayBacklog inserts rows push rows of aggs aggregates, each
// aggregate's rows together (in runs, as a burst after an outage leaves
// them), finished rows of the same aggregates that retention keeps, rows
// without an aggregate, and half of the aggregates busy with a processing
// row under a live lease.
func relayBacklog(t *testing.T, db *postgres.DB, rows, aggs, finished, unkeyed int) {
	t.Helper()
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, state, created_at)
		SELECT 's1', 'done-' || g, 'agg-' || (g % $1), '{}', 'processed', now() - interval '2 hours' + g * interval '1 ms'
		FROM generate_series(1, $2) g`, aggs, finished)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, created_at)
		SELECT 's1', 'run-' || g, 'agg-' || ((g - 1) / ($1 / $2)), '{}', now() - interval '1 hour' + g * interval '1 ms'
		FROM generate_series(1, $1) g`, rows, aggs)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, created_at)
		SELECT 's2', 'free-' || g, '{}', now() - interval '1 hour' + g * interval '1 ms'
		FROM generate_series(1, $1) g`, unkeyed)
	exec(t, db, `UPDATE inbox SET state = 'processing', claim_token = gen_random_uuid(),
		    lease_expires_at = now() + interval '1 hour'
		WHERE id IN (SELECT DISTINCT ON (aggregate_id) id FROM inbox
		             WHERE state = 'pending' AND aggregate_id IS NOT NULL AND substr(aggregate_id, 5)::int % 2 = 0
		             ORDER BY aggregate_id, created_at, id)`)
}

func TestRelayClaimCostStaysBoundedByTheBatch(t *testing.T) {
	t.Parallel()
	cases := []struct{ rows, aggs, finished, unkeyed int }{
		{10_000, 200, 20_000, 0},
		{10_000, 5_000, 0, 2_000},
		{20_000, 200, 0, 20_000},
	}
	for _, tc := range cases {
		for _, stale := range []bool{true, false} {
			for _, keyedFirst := range []bool{true, false} {
				name := fmt.Sprintf("%d rows/%d aggregates/%d finished/%d unkeyed/stale=%v/keyedFirst=%v",
					tc.rows, tc.aggs, tc.finished, tc.unkeyed, stale, keyedFirst)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					db, l := boundSchema(t)
					relayBacklog(t, db, tc.rows, tc.aggs, tc.finished, tc.unkeyed)
					analyzeUnlessStale(t, db, stale, "inbox")
					stmt, err := postgres.RenderClaim("inbox_relay_claim", l, keyedFirst)
					require.NoError(t, err)
					touched, claimed, scans := explainCost(t, db, stmt, boundBatch, 60_000, []string{"s1", "s2"}, nil, "", nil, nil, nil, nil, nil)
					require.Equal(t, float64(boundBatch), claimed, "a whole batch is claimable")
					busy := tc.aggs / 2
					require.LessOrEqual(t, touched, float64(claimBound+busy), "rows the claim's scans touched: %v", scans)
				})
			}
		}
	}
}

// outboxBacklog inserts rows pending rows of keys keys in runs (none when
// keys is 0: unkeyed rows) after finished rows that retention keeps. With
// down set, the first three quarters of each key's run go to a failing
// destination whose rows wait an hour (a postponed backlog); the rest,
// like every row otherwise, to a healthy one.
func outboxBacklog(t *testing.T, db *postgres.DB, rows, keys, finished int, down bool) {
	t.Helper()
	exec(t, db, `INSERT INTO outbox (topic, key, payload, state, destination)
		SELECT 't', 'k-' || (g % greatest($1::int, 1)), '{}', 'sent', 'up' FROM generate_series(1, $2) g`, keys, finished)
	exec(t, db, `INSERT INTO outbox (topic, key, payload, destination, scheduled_at)
		SELECT 't', CASE WHEN $2::int > 0 THEN 'k-' || ((g - 1) / ($1 / greatest($2::int, 1))) END, '{}',
		       CASE WHEN $2::int = 0 THEN '' WHEN $3 AND (g - 1) % ($1 / $2) < ($1 / $2) * 3 / 4 THEN 'down' ELSE 'up' END,
		       CASE WHEN $3 AND (g - 1) % ($1 / greatest($2::int, 1)) < ($1 / greatest($2::int, 1)) * 3 / 4
		            THEN now() + interval '1 hour' ELSE now() END
		FROM generate_series(1, $1) g`, rows, keys, down)
}

func TestOutboxClaimCostStaysBoundedByTheBatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rows, keys, finished int
		down                 bool
	}{
		{20_000, 200, 20_000, false},
		{20_000, 0, 20_000, false},
		{20_000, 10_000, 0, false},
		// A failing lane beside a healthy one on every key: the failing
		// lane's postponed backlog costs one probe per lane.
		{20_000, 1_000, 0, true},
	}
	for _, tc := range cases {
		for _, stale := range []bool{true, false} {
			for _, keyedFirst := range []bool{true, false} {
				name := fmt.Sprintf("%d rows/%d keys/%d finished/down=%v/stale=%v/keyedFirst=%v",
					tc.rows, tc.keys, tc.finished, tc.down, stale, keyedFirst)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					db, l := boundSchema(t)
					outboxBacklog(t, db, tc.rows, tc.keys, tc.finished, tc.down)
					analyzeUnlessStale(t, db, stale, "outbox")
					stmt, err := postgres.RenderClaim("outbox_claim", l, keyedFirst)
					require.NoError(t, err)
					touched, claimed, scans := explainCost(t, db, stmt, boundBatch, "", 60_000, nil, "", nil, nil, nil, nil, nil, nil)
					require.Equal(t, float64(boundBatch), claimed, "a whole batch is claimable")
					require.LessOrEqual(t, touched, float64(claimBound), "rows the claim's scans touched: %v", scans)
				})
			}
		}
	}
}
