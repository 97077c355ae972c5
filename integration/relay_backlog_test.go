package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTwoRelaysDrainABacklogInRunsWithoutLosingClaims reproduces the
// finding of the relay backlog issue: 10,000 push rows of 200 aggregates,
// each aggregate's rows together, inserted into a freshly migrated inbox
// whose statistics predate them (autovacuum is kept off it), then two
// relays with inbox.relay.claimTimeoutMs 3000. The old claim took seconds
// on such statistics and handed out leases that had already expired, so
// the relays lost every batch they claimed and forwarded nothing. Now
// both drain the backlog exactly once, in each aggregate's order, and
// lose no claim.
func TestTwoRelaysDrainABacklogInRunsWithoutLosingClaims(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(db.env(),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_HOOKS_TOPIC", "backlog",
		"QUEUEBOX_INBOX_RELAY_CLAIMTIMEOUTMS", "3000")
	// The first relay migrates; the backlog commits in one statement, so
	// both relays meet all of it at once.
	first := startServing(t, "relay", env)
	conn := db.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `ALTER TABLE inbox SET (autovacuum_enabled = false); ANALYZE inbox`)
	require.NoError(t, err)
	const rows, aggregates = 10_000, 200
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, created_at)
		SELECT 'hooks', 'evt-' || g, 'agg-' || ((g - 1) / ($1 / $2)), '{}', now() + g * interval '1 microsecond'
		FROM generate_series(1, $1) g`, rows, aggregates)
	require.NoError(t, err)
	second := startServing(t, "relay", env)

	waitForwardedOnce(t, db, rows)
	requireAggregateOrder(t, db)
	for _, p := range []*process{first, second} {
		code, scrape := get(t, p.url("/metrics"))
		require.Equal(t, http.StatusOK, code)
		require.Zero(t, sample(t, scrape, `queuebox_claims_lost_total{component="inbox"}`), "claims lost")
		require.NotContains(t, p.out.String(), "relay claims lost")
	}
}
