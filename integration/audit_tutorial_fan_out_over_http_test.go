package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// fanOutPage is the how-to of docs/ for HTTP destinations and routes.
const fanOutPage = "tutorials/http-destinations.md"

// fanOutReceivers starts the page's analytics and audit endpoints and
// returns the page's configuration pointed at them.
func fanOutReceivers(t *testing.T) (analytics, audit *brokertest.HTTPReceiver, yaml string) {
	t.Helper()
	analytics = brokertest.NewHTTPReceiver(t, nil)
	audit = brokertest.NewHTTPReceiver(t, nil)
	yaml = blockUnder(t, fanOutPage, "yaml", "Send one event to several endpoints")
	yaml = strings.NewReplacer("http://analytics:8080", analytics.URL, "http://audit:8080", audit.URL).Replace(yaml)
	return analytics, audit, yaml + "outbox:\n  pollIntervalMs: 20\n"
}

// TestAuditTutorialFanOutTwoRows: the page's two destinations and its
// transaction of two rows; each endpoint gets its own row, with the
// documented headers.
func TestAuditTutorialFanOutTwoRows(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	analytics, audit, yaml := fanOutReceivers(t)
	startServing(t, "deliver", tutorialConfig(t, db, yaml))
	psqlExec(t, db, blockUnder(t, fanOutPage, "sql", "Send one event to several endpoints"))
	waitOutbox(t, db, "analytics.payment.succeeded", "sent")
	waitOutbox(t, db, "audit.payment.succeeded", "sent")

	ids := map[string]string{}
	for _, r := range psqlRows(t, db, `SELECT topic, id FROM outbox`) {
		ids[r[0]] = r[1]
	}
	for topic, rc := range map[string]*brokertest.HTTPReceiver{"analytics.payment.succeeded": analytics, "audit.payment.succeeded": audit} {
		got := rc.Requests()
		require.Len(t, got, 1, topic)
		r := got[0]
		require.Equal(t, http.MethodPost, r.Method)
		require.Equal(t, "/events", r.Path)
		require.Equal(t, "application/json", r.Header.Get("Content-Type"))
		require.Equal(t, ids[topic], r.Header.Get("X-Message-Id"))
		require.Equal(t, topic, r.Header.Get("X-Topic"))
		require.Equal(t, "0", r.Header.Get("X-Attempt"))
		require.Equal(t, "cust-42", r.Header.Get("X-Message-Key"))
		require.Equal(t, `{"amount":4200,"paymentId":"pay_1"}`, r.Body)
	}
}

// startStripeStack starts ingest, relay and deliver on yaml with the http
// source stripe (/inbox/stripe, the event type as the topic) and a fast
// relay, and returns ingest.
func startStripeStack(t *testing.T, db database, yaml string, kv ...string) *process {
	t.Helper()
	env := with(with(tutorialConfig(t, db, yaml),
		"QUEUEBOX_SOURCES_STRIPE_TYPE", "http", "QUEUEBOX_SOURCES_STRIPE_PATH", "/stripe",
		"QUEUEBOX_SOURCES_STRIPE_IDEMPOTENCYKEYPATH", "$.id", "QUEUEBOX_SOURCES_STRIPE_EVENTTYPEPATH", "$.type",
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20"), kv...)
	ingest := startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)
	return ingest
}

// TestAuditTutorialFanOutExample runs "Run the example" without Docker:
// examples/http-fanout/queuebox.yml with its two receivers replaced by
// test receivers, ingest, relay and deliver, and the page's two webhooks.
// As the page says, e1 reaches both receivers with one X-Message-Id and e2
// only audit, each with the relay's headers.
func TestAuditTutorialFanOutExample(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	analytics := brokertest.NewHTTPReceiver(t, nil)
	audit := brokertest.NewHTTPReceiver(t, nil)
	file, err := os.ReadFile(filepath.Join("..", "examples", "http-fanout", "queuebox.yml"))
	require.NoError(t, err)
	yaml := strings.NewReplacer("http://analytics:8080", analytics.URL, "http://audit:8080", audit.URL).Replace(string(file))
	env := with(tutorialConfig(t, db, yaml), "QUEUEBOX_OUTBOX_POLLINTERVALMS", "20", "QUEUEBOX_INBOX_RELAY_POLLINTERVALMS", "20")
	ingest := startServing(t, "ingest", env)
	startServing(t, "relay", env)
	startServing(t, "deliver", env)

	block := blockUnder(t, fanOutPage, "bash", "Run the example", "/inbox/stripe")
	bodies := regexp.MustCompile(`-d '([^']*)'`).FindAllStringSubmatch(block, -1)
	require.Len(t, bodies, 2, block)
	for _, m := range bodies {
		code, resp, _ := post(t, ingest.url("/inbox/stripe"), m[1])
		require.Equal(t, http.StatusAccepted, code, resp)
	}
	require.Eventually(t, func() bool {
		return len(analytics.Requests()) == 1 && len(audit.Requests()) == 2 &&
			psqlRows(t, db, `SELECT count(*) FROM outbox WHERE state <> 'sent'`)[0][0] == "0"
	}, 60*time.Second, 20*time.Millisecond, "e1 to both receivers, e2 to audit")
	byKey := map[string][]brokertest.HTTPRequest{}
	for _, r := range append(analytics.Requests(), audit.Requests()...) {
		require.Equal(t, "stripe", r.Header.Get("x-source"))
		require.NotEmpty(t, r.Header.Get("x-inbox-id"))
		require.NotEmpty(t, r.Header.Get("X-Correlation-Id"))
		byKey[r.Header.Get("x-idempotency-key")] = append(byKey[r.Header.Get("x-idempotency-key")], r)
	}
	require.Len(t, byKey["e1"], 2)
	require.Equal(t, byKey["e1"][0].Header.Get("X-Message-Id"), byKey["e1"][1].Header.Get("X-Message-Id"), "one id for both receivers")
	require.Equal(t, "e1", analytics.Requests()[0].Header.Get("x-idempotency-key"))
	require.Len(t, byKey["e2"], 1)
	require.Equal(t, "audit.login", byKey["e2"][0].Header.Get("X-Topic"))
}

// TestAuditTutorialFanOutPatterns checks the page's pattern table through
// the binary: routes tried in order, the first match wins, * stops at a
// dot, ** does not, and a topic that no route matches goes dead.
func TestAuditTutorialFanOutPatterns(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	startServing(t, "deliver", tutorialConfig(t, db, fmt.Sprintf(`
outbox:
  pollIntervalMs: 20
destinations:
  exact:
    type: http
    baseUrl: %[1]s
    path: /exact
  one:
    type: http
    baseUrl: %[1]s
    path: /one
  any:
    type: http
    baseUrl: %[1]s
    path: /any
  default:
    type: http
    baseUrl: %[1]s
routes:
  - topicPattern: "order.created"
    destination: exact
  - topicPattern: "order.*"
    destination: one
  - topicPattern: "order.**"
    destination: any
  - topicPattern: "a+b.c-d"
    destination: default
`, rc.URL)))
	psqlExec(t, db, `INSERT INTO outbox (topic, payload) VALUES
		('order.created', '{}'), ('order.paid', '{}'), ('order.item.added', '{}'),
		('order', '{}'), ('a+b.c-d', '{}'), ('aab.c-d', '{}')`)
	want := map[string]string{"order.created": "/exact", "order.paid": "/one", "order.item.added": "/any", "a+b.c-d": "/"}
	for topic := range want {
		waitOutbox(t, db, topic, "sent")
	}
	for _, topic := range []string{"order", "aab.c-d"} {
		_, reason := waitOutbox(t, db, topic, "dead")
		require.Equal(t, "No route matches topic "+topic, reason)
	}
	got := map[string]string{}
	for _, r := range rc.Requests() {
		got[r.Header.Get("X-Topic")] = r.Path
	}
	require.Equal(t, want, got, "the path defaults to /")
}

// TestAuditTutorialFanOutAnswers: any 2xx completes, 202 included; a 3xx
// is not followed and fails like a 5xx or a timeout; each failure raises
// X-Attempt until the row is dead.
func TestAuditTutorialFanOutAnswers(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var failing []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch topic := r.Header.Get("X-Topic"); {
		case r.URL.Path == "/landing":
			w.WriteHeader(http.StatusOK) // reached only if a redirect were followed
		case topic == "accepted":
			w.WriteHeader(http.StatusAccepted)
		case topic == "created":
			w.WriteHeader(http.StatusCreated)
		case topic == "redirect":
			http.Redirect(w, r, "/landing", http.StatusFound)
		case topic == "slow":
			<-release
		default:
			mu.Lock()
			failing = append(failing, r.Header.Get("X-Attempt"))
			mu.Unlock()
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	startServing(t, "deliver", tutorialConfig(t, db, fmt.Sprintf(`
outbox:
  pollIntervalMs: 20
  retryBaseDelayMs: 1
destinations:
  endpoint:
    type: http
    baseUrl: %s
    timeoutMs: 200
    # Three 503s and two timeouts may come five in a row and open the
    # breaker (on by default), which would defer the failing row for 30 s;
    # the page describes each answer's outcome, not flow control.
    flowControl:
      circuitBreaker:
        enabled: false
routes:
  - topicPattern: "**"
    destination: endpoint
`, srv.URL)))
	psqlExec(t, db, `INSERT INTO outbox (topic, payload, max_attempts) VALUES
		('accepted', '{}', 2), ('created', '{}', 2), ('redirect', '{}', 1), ('failing', '{}', 2), ('slow', '{}', 1)`)
	for _, topic := range []string{"accepted", "created"} {
		attempt, _ := waitOutbox(t, db, topic, "sent")
		require.Zero(t, attempt)
	}
	for topic, attempt := range map[string]int{"redirect": 1, "failing": 2, "slow": 1} {
		got, reason := waitOutbox(t, db, topic, "dead")
		require.Equal(t, attempt, got, topic)
		require.NotEmpty(t, reason)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"0", "1", "2"}, failing)
}

// TestAuditTutorialFanOutBlockPrivateAddresses: the page's block starts
// although its host does not resolve here, and the same setting refuses a
// loopback destination at startup.
func TestAuditTutorialFanOutBlockPrivateAddresses(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	yaml := blockUnder(t, fanOutPage, "yaml", "Block private addresses")
	require.Contains(t, yaml, "blockPrivateAddresses: true")
	startServing(t, "deliver", tutorialConfig(t, db, yaml))

	loopback := strings.ReplaceAll(yaml, "https://api.partner.example", "http://127.0.0.1:9")
	p := start(t, "deliver", tutorialConfig(t, db, loopback))
	require.Equal(t, 2, p.wait(t, 30*time.Second))
	line := stderrLine(t, p)
	require.Contains(t, line, "destinations.partner-api.baseUrl")
	require.Contains(t, line, "loopback")
}
