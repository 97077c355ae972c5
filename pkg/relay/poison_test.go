package relay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A row whose rendered topic the outbox cannot hold (an event type of 255
// characters behind the "orders." prefix) fails the batched forward on
// every try. It goes dead alone, with a reason that names the topic, and
// the rest of its batch and the rows of the other source are forwarded
// at once, not after a lease of retries (the lease here is five minutes).
func TestRelayDeadLettersAPoisonRowAloneAndForwardsTheRest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conn := e.s.Connect(t)
	insertInbox(t, conn, "orders", "poison", "order-1", strings.Repeat("T", 255), "push")
	insertInbox(t, conn, "orders", "fine-1", "order-2", "created", "push")
	insertInbox(t, conn, "orders", "fine-2", "order-1", "updated", "push")
	insertInbox(t, conn, "payments", "pay-1", "", "captured", "push")
	r, _ := e.relay(t, 5*time.Minute)
	stop := runFor(t, r)
	waitForwarded(t, conn, 3)
	stop()

	var state, lastError string
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT state, last_error FROM inbox WHERE idempotency_key = 'poison'`).Scan(&state, &lastError))
	require.Equal(t, "dead", state)
	require.Contains(t, lastError, "the rendered topic (262 characters)")
	require.Contains(t, lastError, "value too long")
	var outbox int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&outbox))
	require.Equal(t, 3, outbox, "no outbox row for the poison row")
	require.NoError(t, r.Check(context.Background()), "a refused row is no fault of the database")
}
