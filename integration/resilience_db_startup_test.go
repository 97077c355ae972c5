package integration

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartWaitsForTheDatabase starts queuebox-relay while its database
// refuses connections: it logs that it waits, and serves once the
// database takes connections within database.startupTimeoutMs.
func TestStartWaitsForTheDatabase(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	cut := newOutage(t, db)
	cut.block()
	port := freePort(t)
	p := start(t, "relay", with(db.env(),
		"QUEUEBOX_SERVER_HTTPPORT", fmt.Sprint(port),
		"QUEUEBOX_DATABASE_STARTUPTIMEOUTMS", "60000"))
	p.port = port
	require.Eventually(t, func() bool { return strings.Contains(p.out.String(), "database not ready, retrying") },
		30*time.Second, 20*time.Millisecond)
	cut.unblock()
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	requireRunning(t, p)
}

// TestStartGivesUpAfterTheStartupTimeout: with no database answering
// within database.startupTimeoutMs, the process exits with 1 and says
// why, naming the key and never the password.
func TestStartGivesUpAfterTheStartupTimeout(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	newOutage(t, db).block()
	p := start(t, "deliver", with(db.env(), "QUEUEBOX_DATABASE_STARTUPTIMEOUTMS", "1500"))
	require.Equal(t, 1, p.wait(t, 30*time.Second))
	out := p.out.String()
	require.Contains(t, out, "database.startupTimeoutMs")
	require.Contains(t, out, "not currently accepting connections", "the database's own reason")
	require.NotContains(t, out, "sup3r-secret")
}
