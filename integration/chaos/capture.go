package chaos

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// CaptureScenario is scenario 7: deliver replicas that poll only at the
// reconciliation interval, woken by capture; capture and deliver replicas
// are killed with SIGKILL. It runs on a private cluster: the replication
// slot that capture creates would block the drop of a database on the
// shared server. Capture keeps its state directory across its restarts,
// as a volume would.
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
