package integration

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var pendingAge = regexp.MustCompile(`(?m)^queuebox_inbox_oldest_pending_age_seconds (\S+)$`)

// inboxPendingAge scrapes the oldest-pending gauge of p; ok is false when
// the scrape does not hold it.
func inboxPendingAge(t *testing.T, p *process) (float64, bool) {
	t.Helper()
	_, scrape := get(t, p.url("/metrics"))
	m := pendingAge.FindStringSubmatch(scrape)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v, true
}

func pullSourceEnv(env map[string]string) map[string]string {
	return with(env,
		"QUEUEBOX_SOURCES_ORDERS_TYPE", "http",
		"QUEUEBOX_SOURCES_ORDERS_PATH", "/orders",
		"QUEUEBOX_SOURCES_ORDERS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_ORDERS_CONSUMPTION", "pull",
		"QUEUEBOX_INBOX_RELAY_PENDINGGAUGEINTERVALMS", "50")
}

// The runbook reads queuebox_inbox_oldest_pending_age_seconds for a pull
// backlog too: a pending pull row, which the relay never claims, must
// make the gauge of queuebox-relay grow.
func TestAuditIngestPendingGaugeCoversPullRows(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := pullSourceEnv(db.env())
	ingest := startServing(t, "ingest", env)
	code, body, _ := post(t, ingest.url("/inbox/orders"), `{"id":"order-1","total":42}`)
	require.Equal(t, http.StatusAccepted, code, body)

	relay := startServing(t, "relay", env)
	require.Eventually(t, func() bool {
		age, ok := inboxPendingAge(t, relay)
		return ok && age > 0
	}, 30*time.Second, 20*time.Millisecond)
	var state string
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT state FROM inbox`).Scan(&state))
	require.Equal(t, "pending", state, "the relay leaves a pull row alone")
}

// With inbox.relay.enabled false, queuebox-relay still exposes the gauge,
// at zero, and reports no inbox-relay component.
func TestAuditIngestRelayOffKeepsTheGaugeAtZero(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(pullSourceEnv(db.env()), "QUEUEBOX_INBOX_RELAY_ENABLED", "false")
	relay := startServing(t, "relay", env)
	age, ok := inboxPendingAge(t, relay)
	require.True(t, ok, "the gauge is exposed")
	require.Zero(t, age)
	_, health := get(t, relay.url("/health/ready"))
	require.NotContains(t, health, "inbox-relay")
}

// A valid JSON body that the jsonb column cannot hold gets the same 400 on
// every try and leaves no row, instead of a 500 that invites a resend.
func TestAuditIngestBodyTheDatabaseRefuses(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ingest := startServing(t, "ingest", pullSourceEnv(db.env()))
	for range 2 {
		code, body, _ := post(t, ingest.url("/inbox/orders"), `{"id":"order-1","total":1e999999}`)
		require.Equal(t, http.StatusBadRequest, code, body)
		require.True(t, strings.HasPrefix(body, `{"error":"The database cannot store this message: `), body)
	}
	var rows int
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&rows))
	require.Zero(t, rows)
}
