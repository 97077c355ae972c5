package chaos

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// CaptureMargin is what scenario 7 allows beyond the reconciliation
// interval and the lease before a first delivery counts as late.
const CaptureMargin = 10 * time.Second

// CaptureRate is the pace of scenario 7's producer, in messages a second:
// well below what two deliver replicas deliver on a loaded 2-core
// machine, so the bound measures the wake-ups and the faults, not a
// backlog. Unpaced, the full run's 100,000 rows arrived faster than any
// replica could deliver them and most were late by the queue alone.
const CaptureRate = 500

// CaptureScenario is scenario 7: deliver replicas that poll only at the
// reconciliation interval, woken by capture; capture and deliver replicas
// are killed with SIGKILL. It runs on a private cluster: the replication
// slot that capture creates would block the drop of a database on the
// shared server. Capture keeps its state directory across its restarts,
// as a volume would.
//
// Every row must reach the receiver within its reconciliation bound: the
// reconciliation interval (the replicas' poll when capture is silent),
// plus the lease (a killed replica's claimed rows wait for it), plus
// CaptureMargin for the restart of a replica and retries of the receiver's
// failed answers on a busy machine.
func CaptureScenario(t *testing.T, reconcile time.Duration) Scenario {
	t.Helper()
	pg := StartCluster(t)
	state := t.TempDir()
	return Scenario{
		Name:     "7 capture, kill -9 of capture and deliver",
		Database: func(t testing.TB) *Database { return NewDatabase(t, pg.URL()) },
		Roles:    []string{"deliver", "deliver", "capture"},
		Choices:  []Step{{Kind: "kill", Role: "capture"}, {Kind: "kill", Role: "deliver"}},
		Lease:    3 * time.Second,
		Bound:    reconcile + 3*time.Second + CaptureMargin,
		Rate:     CaptureRate,
		Env: func(role string) map[string]string {
			env := map[string]string{
				"QUEUEBOX_OUTBOX_POLLINTERVALMS":                   "60000",
				"QUEUEBOX_OUTBOX_CAPTURE_MODE":                     "postgres-logical",
				"QUEUEBOX_OUTBOX_CAPTURE_SLOT":                     "qb_chaos",
				"QUEUEBOX_OUTBOX_CAPTURE_PUBLICATION":              "qb_chaos",
				"QUEUEBOX_OUTBOX_CAPTURE_RECONCILIATIONINTERVALMS": fmt.Sprint(reconcile.Milliseconds()),
			}
			if role == "capture" {
				env["QUEUEBOX_OUTBOX_CAPTURE_ENABLED"] = "true"
				env["QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY"] = state
			}
			return env
		},
		AfterFirst: func(r *Run) {
			if _, err := r.DB.Pool.Exec(context.Background(), `CREATE PUBLICATION qb_chaos FOR TABLE outbox`); err != nil {
				r.T.Fatalf("create the publication: %v", err)
			}
		},
	}
}
