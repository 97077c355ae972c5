package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// firstMessagePage is the first tutorial of docs/.
const firstMessagePage = "tutorials/first-outbox-message.md"

// tutorialConfig writes a configuration file from a page's YAML and
// returns the environment that starts a binary with it.
func tutorialConfig(t *testing.T, db database, yaml string) map[string]string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "queuebox.yml")
	require.NoError(t, os.WriteFile(file, []byte(yaml), 0o600))
	env := with(db.env(), "QUEUEBOX_CONFIG_FILE", file)
	if strings.Contains(yaml, "poolSize:") {
		delete(env, "QUEUEBOX_DATABASE_POOLSIZE") // the page's value must win
	}
	return env
}

// requireHealthy asks /health as the tutorials do.
func requireHealthy(t *testing.T, p *process) {
	t.Helper()
	code, body := get(t, p.url("/health"))
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, strings.HasPrefix(body, `{"status":"healthy"`), body)
}

// TestAuditTutorialFirstOutboxMessage walks the first tutorial with the
// built poller in place of the Compose stack: the page's route, its
// insert, the body that the receiver prints and the row it reads back.
func TestAuditTutorialFirstOutboxMessage(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	route := blockUnder(t, firstMessagePage, "yaml", "Read the route", "webhook-api")
	route = strings.ReplaceAll(route, "http://receiver:8080", rc.URL)
	// The tutorial's configuration polls every 100 milliseconds.
	deliver := startServing(t, "deliver", tutorialConfig(t, db, route+"outbox:\n  pollIntervalMs: 100\n"))
	requireHealthy(t, deliver)

	psqlExec(t, db, heredoc(t, blockUnder(t, firstMessagePage, "bash", "Insert an outbox row"), "SQL"))

	require.Eventually(t, func() bool { return len(rc.Requests()) == 1 }, 30*time.Second, 10*time.Millisecond)
	got := rc.Requests()[0]
	require.Equal(t, http.MethodPost, got.Method)
	require.Equal(t, "/webhook", got.Path)
	// The receiver prints the body as it arrives: the page shows the
	// keys in jsonb order, without the spaces of PostgreSQL's text form.
	require.Equal(t, `{"amount":42,"orderId":"1001"}`, got.Body)

	query := psqlCommands(t, blockUnder(t, firstMessagePage, "bash", "See the row in state"))[0]
	want := [][]string{{"order.created", "order-1001", "sent", "0"}}
	require.Eventually(t, func() bool {
		rows := psqlRows(t, db, query)
		return len(rows) == 1 && rows[0][2] == "sent"
	}, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, want, psqlRows(t, db, query))
}
