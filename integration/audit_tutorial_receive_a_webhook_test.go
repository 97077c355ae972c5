package integration

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// receiveWebhookPage is the second tutorial of docs/.
const receiveWebhookPage = "tutorials/receive-a-webhook.md"

var uuidText = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// postedBody returns the -d argument of the first curl block under a
// heading of the tutorial.
func postedBody(t *testing.T, heading string) string {
	t.Helper()
	m := regexp.MustCompile(`-d '([^']*)'`).FindStringSubmatch(blockUnder(t, receiveWebhookPage, "bash", heading, "curl"))
	require.NotNil(t, m, "a curl -d under %q", heading)
	return m[1]
}

// TestAuditTutorialReceiveAWebhook walks the second tutorial up to the
// pull worker, which belongs to the client libraries: the page's pull
// source with the whole stack running, the 202 and its messageId, the
// duplicate, and the row that the page reads back. A pull source needs no
// topic, route or destination, so every role starts without them.
func TestAuditTutorialReceiveAWebhook(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	source := blockUnder(t, receiveWebhookPage, "yaml", "Add a pull source", "sources:")
	env := with(tutorialConfig(t, db, "inbox:\n  basePath: /inbox\n"+source),
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20", "QUEUEBOX_INBOX_RELAY_PENDINGGAUGEINTERVALMS", "50")
	ingest := startServing(t, "ingest", env)
	relay := startServing(t, "relay", env)
	startServing(t, "deliver", env)
	requireHealthy(t, ingest)

	body := postedBody(t, "Post the webhook")
	require.Equal(t, body, postedBody(t, "Post it again"))
	code, resp, header := post(t, ingest.url("/inbox/orders"), body)
	require.Equal(t, http.StatusAccepted, code, resp)
	require.Contains(t, header.Get("Content-Type"), "application/json")
	var accepted map[string]string
	require.NoError(t, json.Unmarshal([]byte(resp), &accepted), resp)
	require.Len(t, accepted, 1, resp)
	require.Regexp(t, uuidText, accepted["messageId"])

	code, resp, _ = post(t, ingest.url("/inbox/orders"), body)
	require.Equal(t, http.StatusOK, code, resp)
	require.JSONEq(t, `{"status":"duplicate"}`, resp)

	// The relay must have run a cycle over the stored row before the
	// state says anything: its gauge sees the pending pull row.
	require.Eventually(t, func() bool {
		age, ok := inboxPendingAge(t, relay)
		return ok && age > 0
	}, 30*time.Second, 20*time.Millisecond)
	query := psqlCommands(t, blockUnder(t, receiveWebhookPage, "bash", "Look at the stored row"))[0]
	require.Equal(t, [][]string{{"orders", "order-1", "pull", "pending"}}, psqlRows(t, db, query))
	require.Equal(t, [][]string{{accepted["messageId"]}}, psqlRows(t, db, "SELECT id FROM inbox"))

	psqlExec(t, db, psqlCommands(t, blockUnder(t, receiveWebhookPage, "bash", "Create the business table"))[0])
	code, resp, _ = post(t, ingest.url("/inbox/orders"), postedBody(t, "Check the result"))
	require.Equal(t, http.StatusAccepted, code, resp)
	require.Equal(t, [][]string{{"order-1", "pending"}, {"order-2", "pending"}},
		psqlRows(t, db, "SELECT idempotency_key, state FROM inbox WHERE source = 'orders' ORDER BY idempotency_key"))
	require.Equal(t, [][]string{{"0"}}, psqlRows(t, db, "SELECT count(*) FROM outbox"), "a pull row is never forwarded")
}
