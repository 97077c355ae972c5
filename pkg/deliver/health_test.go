package deliver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPollerIsUpAgainOnceAClaimSucceeds makes every claim fail (the table
// is away), then lets claims succeed with nothing to claim: the component
// must report up again without waiting for a due row.
func TestPollerIsUpAgainOnceAClaimSucceeds(t *testing.T) {
	rc := newReceiver(t, ok)
	e := newEnv(t, rc.URL)
	p, _ := e.poller(t)
	start(t, p)

	e.exec(t, `ALTER TABLE outbox RENAME TO outbox_away`)
	require.Eventually(t, func() bool { return p.Check(context.Background()) != nil },
		30*time.Second, 10*time.Millisecond, "down while claims fail")
	e.exec(t, `ALTER TABLE outbox_away RENAME TO outbox`)
	require.Eventually(t, func() bool { return p.Check(context.Background()) == nil },
		30*time.Second, 10*time.Millisecond, "up once a claim succeeds, though it found no row")
}
