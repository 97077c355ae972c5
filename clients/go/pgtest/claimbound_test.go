package pgtest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
)

// The pull claim must cost what its candidate bound and the rows in
// flight cost, not what the backlog holds, on any plan the planner picks:
// on statistics taken while the table was empty (a table after a burst,
// until autovacuum analyzes it) and on fresh ones. The test counts the
// rows every scan of the plan touched (returned or filtered out, times its
// loops) with EXPLAIN ANALYZE: a count, not a time.

type planNode struct {
	Type            string     `json:"Node Type"`
	Index           string     `json:"Index Name"`
	Rows            float64    `json:"Actual Rows"`
	Loops           float64    `json:"Actual Loops"`
	RemovedByFilter float64    `json:"Rows Removed by Filter"`
	RemovedByCheck  float64    `json:"Rows Removed by Index Recheck"`
	Plans           []planNode `json:"Plans"`
}

func (n planNode) self() float64 {
	switch n.Type {
	case "Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan":
		return (n.Rows + n.RemovedByFilter + n.RemovedByCheck) * n.Loops
	}
	return 0
}

func (n planNode) touched() float64 {
	sum := n.self()
	for _, c := range n.Plans {
		sum += c.touched()
	}
	return sum
}

func (n planNode) scans(out []string) []string {
	if s := n.self(); s > 0 {
		out = append(out, fmt.Sprintf("%s %s: %.0f", n.Type, n.Index, s))
	}
	for _, c := range n.Plans {
		out = c.scans(out)
	}
	return out
}

// explainClaim runs EXPLAIN ANALYZE of the contract's claim in a
// transaction begun as the contract asks, that rolls back.
func explainClaim(t *testing.T, db *sql.DB, source string, batch int) (touched, claimed float64, scans []string) {
	t.Helper()
	text, args := bind(t, "claim", map[string]any{"source": source, "batch": batch, "lease_ms": 60_000,
		"cand_limit": min(max(3*batch, 50), 500)})
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // the claim must not stay
	// As the contract asks (claim.sql) and the clients do.
	if _, err := tx.Exec("SELECT set_config('enable_sort', 'off', true), set_config('jit', 'off', true)"); err != nil {
		t.Fatal(err)
	}
	var plan []byte
	if err := tx.QueryRow("EXPLAIN (ANALYZE, FORMAT JSON) "+text, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &doc); err != nil {
		t.Fatal(err)
	}
	return doc[0].Plan.touched(), doc[0].Plan.Rows, doc[0].Plan.scans(nil)
}

func TestThePullClaimCostStaysBounded(t *testing.T) {
	t.Parallel()
	const batch = 100
	cases := []struct {
		name                               string
		rows, aggs, finished, future, busy int
		runs                               bool
	}{
		// Interleaved aggregates: a whole batch is claimable.
		{name: "interleaved", rows: 20_000, aggs: 5_000, finished: 20_000, future: 10_000, busy: 300},
		// Each aggregate's rows together, as an outage leaves them: the
		// window holds few aggregates, and the cost stays bounded.
		{name: "runs", rows: 20_000, aggs: 200, finished: 0, future: 0, busy: 100, runs: true},
		// Rows without an aggregate, and expired leases to reclaim.
		{name: "unkeyed", rows: 20_000, aggs: 0, finished: 20_000, future: 0, busy: 300},
	}
	for _, tc := range cases {
		for _, stale := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stale=%v", tc.name, stale), func(t *testing.T) {
				t.Parallel()
				db := migrated(t)
				mustExec(t, db, `ALTER TABLE inbox SET (autovacuum_enabled = false); ANALYZE inbox`)
				agg := `CASE WHEN $2::int = 0 THEN NULL ELSE 'agg-' || (g % greatest($2::int, 1)) END`
				if tc.runs {
					agg = `'agg-' || ((g - 1) / ($1 / $2))`
				}
				mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, state, created_at)
					SELECT 's', 'done-' || g, 'agg-' || g, '{}', 'pull', 'processed', now() - interval '3 hours'
					FROM generate_series(1, $1) g`, tc.finished)
				mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, scheduled_at)
					SELECT 's', 'later-' || g, 'agg-' || g, '{}', 'pull', now() + interval '1 hour'
					FROM generate_series(1, $1) g`, tc.future)
				mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, created_at, scheduled_at)
					SELECT 's', 'run-' || g, `+agg+`, '{}', 'pull',
					       now() - interval '2 hours' + g * interval '1 ms', now() - interval '2 hours' + g * interval '1 ms'
					FROM generate_series(1, $1) g`, tc.rows, tc.aggs)
				// Rows in flight: half under a live lease, half expired.
				mustExec(t, db, `UPDATE inbox SET state = 'processing', claim_token = gen_random_uuid(),
					    lease_expires_at = CASE WHEN n % 2 = 0 THEN now() + interval '1 hour' ELSE now() - interval '1 minute' END
					FROM (SELECT id AS pid, row_number() OVER (ORDER BY created_at DESC) AS n FROM inbox
					      WHERE idempotency_key LIKE 'run-%' ORDER BY created_at DESC LIMIT $1) b
					WHERE id = b.pid`, tc.busy)
				// Another source's backlog shares the indexes.
				mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption)
					SELECT 'other', 'o-' || g, 'agg-' || g, '{}', 'pull' FROM generate_series(1, 10000) g`)
				if !stale {
					mustExec(t, db, `ANALYZE inbox`)
				}
				touched, claimed, scans := explainClaim(t, db, "s", batch)
				if !tc.runs && claimed != batch {
					t.Errorf("claimed %.0f rows of a claimable batch of %d", claimed, batch)
				}
				if claimed < 1 {
					t.Errorf("claimed nothing")
				}
				// The bound: the candidates (cand_limit pending and up to
				// cand_limit expired), one probe per candidate and per
				// locked row, and the rows in flight read once by a plan
				// that hashes the busy check. Not the backlog.
				bound := float64(20*batch + 2*tc.busy)
				if touched > bound {
					t.Errorf("the claim's scans touched %.0f rows (bound %.0f): %v", touched, bound, scans)
				}
				t.Logf("claimed %.0f, touched %.0f: %v", claimed, touched, scans)
			})
		}
	}
}
