package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRelayIsUpAgainOnceAClaimSucceeds makes every claim fail (the table
// is away), then lets claims succeed with nothing to claim: the component
// must report up again without waiting for a push row.
func TestRelayIsUpAgainOnceAClaimSucceeds(t *testing.T) {
	e := newEnv(t)
	r, _ := e.relay(t, time.Minute)
	t.Cleanup(runFor(t, r))
	conn := e.s.Connect(t)

	_, err := conn.Exec(context.Background(), `ALTER TABLE inbox RENAME TO inbox_away`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return r.Check(context.Background()) != nil },
		30*time.Second, 10*time.Millisecond, "down while claims fail")
	_, err = conn.Exec(context.Background(), `ALTER TABLE inbox_away RENAME TO inbox`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return r.Check(context.Background()) == nil },
		30*time.Second, 10*time.Millisecond, "up once a claim succeeds, though it found no row")
}
