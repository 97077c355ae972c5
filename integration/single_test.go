package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// stripeEnv adds an HTTP source "stripe" at /inbox/stripe and a fast relay.
func stripeEnv(env map[string]string) map[string]string {
	return with(env,
		"QUEUEBOX_SOURCES_STRIPE_TYPE", "http",
		"QUEUEBOX_SOURCES_STRIPE_PATH", "/stripe",
		"QUEUEBOX_SOURCES_STRIPE_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_STRIPE_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
}

// readyComponents returns the status code of /health/ready at url and each
// component's status.
func readyComponents(t *testing.T, url string) (int, map[string]string) {
	t.Helper()
	code, body := get(t, url)
	var r struct {
		Components map[string]struct{ Status string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &r), body)
	out := map[string]string{}
	for name, c := range r.Components {
		out[name] = c.Status
	}
	return code, out
}

func componentNames(components map[string]string) []string {
	var names []string
	for n := range components {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestSingleProcessReceivesRelaysAndDelivers: one queuebox process takes a
// webhook in, relays it to the outbox and delivers it to the receiver,
// once, on one data port; SIGTERM stops it cleanly.
func TestSingleProcessReceivesRelaysAndDelivers(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	qb := startServing(t, "queuebox", stripeEnv(destinationEnv(db.env(), rc.URL)))
	qb.waitHTTP(t, "/health/ready", http.StatusOK)

	body := `{"id":"evt_1","type":"payment.completed"}`
	code, resp, _ := post(t, qb.url("/inbox/stripe"), body)
	require.Equal(t, http.StatusAccepted, code, resp)
	code, _, _ = post(t, qb.url("/inbox/stripe"), body)
	require.Equal(t, http.StatusOK, code, "a repeat is a duplicate")

	conn := db.connect(t)
	require.Eventually(t, func() bool {
		var state string
		err := conn.QueryRow(context.Background(), `SELECT state FROM outbox`).Scan(&state)
		return err == nil && state == "sent"
	}, 60*time.Second, 20*time.Millisecond, qb.out.String())
	got := rc.Requests()
	require.Len(t, got, 1, "delivered once")
	require.JSONEq(t, body, got[0].Body)
	require.Equal(t, "payment.completed", got[0].Header.Get("X-Topic"))
	var inboxState string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT state FROM inbox`).Scan(&inboxState))
	require.Equal(t, "processed", inboxState)
	require.Equal(t, 0, qb.terminate(t, 60*time.Second), qb.out.String())
}

// TestSingleProcessRunsTheSelectedRoles: --roles and QUEUEBOX_ROLES start
// only the named roles, whose health components, routes and families are
// those of the role binaries; an unknown role is a usage error.
func TestSingleProcessRunsTheSelectedRoles(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := stripeEnv(db.env())

	only := startWithArgs(t, env, "run", "--roles", "ingest")
	only.waitHTTP(t, "/health/ready", http.StatusOK)
	_, components := readyComponents(t, only.url("/health/ready"))
	require.Equal(t, []string{"database"}, componentNames(components))
	code, _, _ := post(t, only.url("/inbox/stripe"), `{"id":"evt_1","type":"a"}`)
	require.Equal(t, http.StatusAccepted, code)
	_, scrape := get(t, only.url("/metrics"))
	require.Contains(t, scrape, "queuebox_inbox_messages_total")
	require.NotContains(t, scrape, "queuebox_outbox_", "deliver does not run")

	pair := startWithArgs(t, with(env, "QUEUEBOX_ROLES", "relay,deliver"))
	pair.waitHTTP(t, "/health/ready", http.StatusOK)
	_, components = readyComponents(t, pair.url("/health/ready"))
	require.Equal(t, []string{"database", "inbox-relay", "outbox-poller"}, componentNames(components))
	code, _, _ = post(t, pair.url("/inbox/stripe"), `{"id":"evt_2","type":"a"}`)
	require.Equal(t, http.StatusNotFound, code, "ingest does not run")

	out, err := exec.Command(binary(t, "queuebox"), "run", "--roles", "ingest,router").CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 2, exit.ExitCode())
	require.Contains(t, string(out), "ingest, relay, deliver, capture", "the error lists the roles")
}

// startWithArgs starts queuebox with args on a free data port.
func startWithArgs(t *testing.T, env map[string]string, args ...string) *process {
	t.Helper()
	port := freePort(t)
	p := start(t, "queuebox", with(env, "QUEUEBOX_SERVER_HTTPPORT", fmt.Sprint(port)), args...)
	p.port = port
	return p
}

// TestSingleProcessUnionOfHealthAndMetrics: every role in one process
// shows the readiness components of all of them (capture advisory), on
// the management port when one is set, and one /metrics with the families
// of every role, each documented, the shared ones (lost claims, cleanup)
// with the series of both tables.
func TestSingleProcessUnionOfHealthAndMetrics(t *testing.T) {
	t.Parallel()
	documented := documentedMetrics(t)
	f := newCaptureFixture(t, 1000)
	mgmt := freePort(t)
	env := with(stripeEnv(f.capture),
		"QUEUEBOX_SERVER_MANAGEMENTPORT", fmt.Sprint(mgmt),
		"QUEUEBOX_RETENTION_ENABLED", "true",
		"QUEUEBOX_RETENTION_OUTBOX_POLICY", "AGE", "QUEUEBOX_RETENTION_OUTBOX_MAXAGE", "7d",
		"QUEUEBOX_RETENTION_INBOX_POLICY", "AGE", "QUEUEBOX_RETENTION_INBOX_MAXAGE", "30d")
	qb := startWithArgs(t, env)
	admin := &process{name: "queuebox management", port: mgmt, done: qb.done, out: qb.out}
	admin.waitHTTP(t, "/health/ready", http.StatusOK)
	code, components := readyComponents(t, admin.url("/health/ready"))
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, []string{"database", "destination.webhook", "inbox-relay", "outbox-capture", "outbox-poller", "retention-service"},
		componentNames(components), "the flow-control state of each destination shows beside the roles' components")
	code, _ = get(t, qb.url("/health/ready"))
	require.Equal(t, http.StatusNotFound, code, "the data port serves no health route with a management port")

	_, scrape := get(t, admin.url("/metrics"))
	for _, family := range families(scrape) {
		// queuebox-capture exposes the queuebox_capture_ families, which
		// the metrics reference does not list yet; the process shows what
		// the role binaries show.
		require.True(t, documented[family] || strings.HasPrefix(family, "queuebox_capture_"),
			"queuebox exposes %s, which the reference does not list", family)
	}
	for _, line := range []string{
		`queuebox_claims_lost_total{component="inbox"} 0`,
		`queuebox_claims_lost_total{component="outbox"} 0`,
		`hikaricp_connections_max{pool="queuebox"} 5`,
	} {
		require.True(t, hasLine(scrape, line), "one scrape holds %s", line)
	}
	// queuebox_cleanup_last_run_timestamp is a labelled family that shows
	// only after a cleanup's first run; the wait below checks it.
	for _, family := range []string{"queuebox_inbox_messages_total", "queuebox_outbox_messages_total",
		"queuebox_uptime_seconds"} {
		require.Contains(t, scrape, "# TYPE "+family+" ", "the families of every role")
	}
	require.Equal(t, 1, strings.Count(scrape, "# TYPE queuebox_claims_lost_total "), "a shared family shows once")
	require.Eventually(t, func() bool {
		_, s := get(t, admin.url("/metrics"))
		return strings.Contains(s, `queuebox_cleanup_last_run_timestamp{table="inbox"}`) &&
			strings.Contains(s, `queuebox_cleanup_last_run_timestamp{table="outbox"}`)
	}, 60*time.Second, 50*time.Millisecond, "both cleanups count into the one family")

	// Capture is advisory: without its publication it is down and the
	// process ready. (Capture streaming in one process with deliver is
	// covered by the queuebox dev test, on a server with wal_level=logical.)
	waitCapture(t, admin, "publication-missing")
}
