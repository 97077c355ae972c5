package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// TestRelayRenewAndForwardDoNotDeadlock is the relay's form of
// TestRenewAndFinishOfOneReplicaDoNotDeadlock: the renewal and the forward
// of one relay run on two connections over the same rows, listed in
// opposite orders, and must lock them in one order.
func TestRelayRenewAndForwardDoNotDeadlock(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, consumption)
		SELECT 'orders', 'evt-' || g, '{}', 'push' FROM generate_series(1, 20) g`)
	require.NoError(t, err)
	r, err := postgres.NewRelay(db, schema.New(schema.Postgres, config.Default().Database), time.Minute, []string{"orders"})
	require.NoError(t, err)
	claimed, err := r.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, claimed, 20)
	leases := make([]claim.Lease, len(claimed))
	for i, row := range claimed {
		leases[i] = row.Lease()
	}
	slices.SortFunc(leases, func(a, b claim.Lease) int { return compareUUID(a.ID, b.ID) })

	forwards := make([]queuebox.Forward, 0, len(leases))
	for i := len(leases) - 1; i >= 0; i-- {
		forwards = append(forwards, queuebox.Forward{Lease: leases[i], Topic: "orders", Headers: []byte(`{}`)})
	}
	renewErr, forwardErr := behindAHeldRow(t, s, "inbox", leases[10].ID,
		func() error { _, err := r.Renew(ctx, leases); return err },
		func() error {
			_, err := r.Forward(ctx, queuebox.ForwardParams{Rows: forwards, MaxAttempts: 5})
			return err
		})
	require.NoError(t, renewErr, "renewal")
	require.NoError(t, forwardErr, "forward")
	var outbox int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&outbox))
	require.Equal(t, 20, outbox)
}
