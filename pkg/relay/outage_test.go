package relay_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/relay"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// awayForward fails every forward for a while after the first one, as a
// database that went away does.
type awayForward struct {
	*postgres.Relay
	outage time.Duration
	mu     sync.Mutex
	until  time.Time
}

func (a *awayForward) Forward(ctx context.Context, p queuebox.ForwardParams) (map[string]bool, error) {
	a.mu.Lock()
	if a.until.IsZero() {
		a.until = time.Now().Add(a.outage)
	}
	away := time.Now().Before(a.until)
	a.mu.Unlock()
	if away {
		return nil, errors.New("the database is away")
	}
	return a.Relay.Forward(ctx, p)
}

// TestAForwardWaitsOutAShortDatabaseOutage: the forward fails for longer
// than a few quick retries last, but the database is back well within
// the lease. The relay keeps trying, so the row is forwarded at once and
// once, instead of waiting, claimed, until its lease expires.
func TestAForwardWaitsOutAShortDatabaseOutage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conn := e.s.Connect(t)
	insertInbox(t, conn, "orders", "evt-1", "order-1", "created", "push")
	m := relay.NewMetrics(prometheus.NewRegistry())
	r := e.newRelay(t, time.Minute, &awayForward{Relay: e.store(t, time.Minute), outage: 2 * time.Second}, m)
	t.Cleanup(runFor(t, r))

	waitForwarded(t, conn, 1)
	var outbox int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&outbox))
	require.Equal(t, 1, outbox)
	// The relay counts a forward after it committed, so the count may
	// move a moment after the row reads processed.
	require.Eventually(t, func() bool { return testutil.ToFloat64(m.Messages.WithLabelValues("forwarded")) == 1 },
		30*time.Second, 5*time.Millisecond, "the forward is counted")
	require.Zero(t, testutil.ToFloat64(m.ClaimsLost))
}
