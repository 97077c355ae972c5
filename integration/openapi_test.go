package integration

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The credentials of startOpenAPIProcess.
const (
	apiSourceToken = "s0urce-t0ken"
	apiSourceKey   = "s0urce-k3y"
	apiHMACSecret  = "hm4c-s3cret"
	apiGitHubKey   = "g1thub-s3cret-0123456789abcdef"
	apiAdminToken  = "adm1n-t0ken-0123456789"
)

// openAPIProcess is the one-process binary with a source of every kind
// the answers need, admin on a management port, and the checker of the
// document for both ports.
type openAPIProcess struct {
	*process
	mgmt int
	api  *apiCheck
}

func (p *openAPIProcess) data(path string) string { return p.url(path) }
func (p *openAPIProcess) admin(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", p.mgmt, path)
}

func startOpenAPIProcess(t *testing.T) *openAPIProcess {
	t.Helper()
	db := newDatabase(t)
	data, mgmt := freePort(t), freePort(t)
	env := with(db.env(),
		"QUEUEBOX_SERVER_HTTPPORT", itoa(data), "QUEUEBOX_SERVER_MANAGEMENTPORT", itoa(mgmt),
		"QUEUEBOX_INBOX_MAXBODYBYTES", "4096",
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer",
		"QUEUEBOX_ADMIN_AUTH_TOKEN", apiAdminToken, "QUEUEBOX_ADMIN_MAXPAYLOADBYTES", "1024")
	for name, kv := range map[string][]string{
		"OPEN":    nil,
		"BEARER":  {"AUTH_TYPE", "bearer", "AUTH_TOKEN", apiSourceToken},
		"APIKEY":  {"AUTH_TYPE", "api-key", "AUTH_KEY", apiSourceKey},
		"HMAC":    {"AUTH_TYPE", "hmac", "AUTH_SECRET", apiHMACSecret},
		"GITHUB":  {"AUTH_TYPE", "github", "AUTH_SECRET", apiGitHubKey},
		"LIMITED": {"RATELIMIT_REQUESTSPERMINUTE", "1"},
		"CHECKED": {"TRANSFORM_EXPRESSION", `$assert($exists(amount), "no amount")`},
		"KEPT":    {"FILTER_REQUIRE_0_HEADER", "X-Keep", "FILTER_REQUIRE_0_EXISTS", "true"},
	} {
		prefix := "QUEUEBOX_SOURCES_" + name + "_"
		env = with(env, prefix+"TYPE", "http", prefix+"PATH", "/"+strings.ToLower(name), prefix+"IDEMPOTENCYKEYPATH", "$.id",
			prefix+"TOPIC", "inbox."+strings.ToLower(name))
		for i := 0; i+1 < len(kv); i += 2 {
			env = with(env, prefix+kv[i], kv[i+1])
		}
	}
	p := start(t, "queuebox", env)
	p.port = data
	out := &openAPIProcess{process: p, mgmt: mgmt}
	require.Eventually(t, func() bool {
		select {
		case <-p.done:
			t.Fatalf("queuebox exited: %v\n%s", p.err, p.out.String())
		default:
		}
		resp, err := http.Get(out.admin("/health/ready"))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 60*time.Second, 50*time.Millisecond, "queuebox ready\n%s", p.out.String())
	out.api = newAPICheck(t, fmt.Sprintf("http://127.0.0.1:%d", data), fmt.Sprintf("http://127.0.0.1:%d", mgmt))
	return out
}

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func hexHMAC(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return hex.EncodeToString(m.Sum(nil))
}

// answerCase is one request and the status it must get; the document
// check runs on every one.
type answerCase struct {
	name   string
	call   call
	status int
	// body, when set, is a substring of the answer.
	body string
}

func post2(url, body string, h http.Header) call {
	return call{method: http.MethodPost, url: url, body: []byte(body), header: h}
}

// TestOpenAPIAnswersOfTheBinary drives the root, every kind of inbox
// source, health, metrics and the admin routes of the built queuebox
// binary, and validates each request and answer against docs/openapi.yaml:
// the successes and the error answers 400, 401, 413, 422, 429 and 431.
func TestOpenAPIAnswersOfTheBinary(t *testing.T) {
	t.Parallel()
	p := startOpenAPIProcess(t)
	signed := `{"id":"h-1","type":"signed"}`
	bearer := hdr("Authorization", "Bearer "+apiAdminToken)
	manyHeaders := http.Header{}
	for i := range 70 {
		manyHeaders.Set(fmt.Sprintf("X-Extra-%d", i), "v")
	}
	cases := []answerCase{
		{"root", call{method: http.MethodGet, url: p.data("/")}, 200, "QueueBox is running!"},
		{"live", call{method: http.MethodGet, url: p.admin("/health/live")}, 200, `"process"`},
		{"ready", call{method: http.MethodGet, url: p.admin("/health/ready")}, 200, `"database"`},
		{"health", call{method: http.MethodGet, url: p.admin("/health")}, 200, `"healthy"`},
		{"metrics", call{method: http.MethodGet, url: p.admin("/metrics")}, 200, "queuebox_"},

		{"stored", post2(p.data("/inbox/open"), `{"id":"o-1","type":"t"}`, hdr("X-Correlation-Id", "corr-1")), 202, `"messageId"`},
		{"duplicate", post2(p.data("/inbox/open"), `{"id":"o-1","type":"t"}`, nil), 200, `"duplicate"`},
		{"not json", call{method: http.MethodPost, url: p.data("/inbox/open"), body: []byte(`{"id":`), malformed: true}, 400, "Invalid JSON"},
		{"no key", post2(p.data("/inbox/open"), `{"type":"t"}`, nil), 400, "$.id"},
		{"declared too large", post2(p.data("/inbox/open"), `{"id":"big","pad":"`+strings.Repeat("x", 5000)+`"}`, nil), 413, "Request body exceeds 4096 bytes"},
		{"chunked too large", call{method: http.MethodPost, url: p.data("/inbox/open"), chunked: true,
			body: []byte(`{"id":"big","pad":"` + strings.Repeat("x", 5000) + `"}`)}, 413, "Request body exceeds 4096 bytes"},
		{"too many headers", call{method: http.MethodPost, url: p.data("/inbox/open"), body: []byte(`{"id":"h"}`),
			header: manyHeaders}, 431, "Request headers exceed"},
		{"header block too large", call{method: http.MethodPost, url: p.data("/inbox/open"), body: []byte(`{"id":"h"}`),
			header: hdr("X-Huge", strings.Repeat("h", 40<<10))}, 431, ""},

		{"bearer missing", post2(p.data("/inbox/bearer"), `{"id":"b-1"}`, nil), 401, "Missing Authorization header"},
		{"bearer wrong", post2(p.data("/inbox/bearer"), `{"id":"b-1"}`, hdr("Authorization", "Bearer nope")), 401, "Invalid bearer token"},
		{"bearer", post2(p.data("/inbox/bearer"), `{"id":"b-1"}`, hdr("Authorization", "Bearer "+apiSourceToken)), 202, ""},
		{"api key wrong", post2(p.data("/inbox/apikey"), `{"id":"k-1"}`, hdr("X-API-Key", "nope")), 401, "Invalid API key"},
		{"api key", post2(p.data("/inbox/apikey"), `{"id":"k-1"}`, hdr("X-API-Key", apiSourceKey)), 202, ""},
		{"hmac forged", post2(p.data("/inbox/hmac"), signed, hdr("X-Signature", "sha256="+hexHMAC("other", signed))), 401, "signature"},
		{"hmac", post2(p.data("/inbox/hmac"), signed, hdr("X-Signature", "sha256="+hexHMAC(apiHMACSecret, signed))), 202, ""},
		{"github", post2(p.data("/inbox/github"), signed, hdr("X-Hub-Signature-256", "sha256="+hexHMAC(apiGitHubKey, signed))), 202, ""},
		{"filtered", post2(p.data("/inbox/kept"), `{"id":"f-1"}`, nil), 202, `"filtered"`},
		{"kept", post2(p.data("/inbox/kept"), `{"id":"f-1"}`, hdr("X-Keep", "yes")), 202, `"messageId"`},
		{"transform failed", post2(p.data("/inbox/checked"), `{"id":"c-1"}`, nil), 422, "Transform failed"},
		{"under the rate limit", post2(p.data("/inbox/limited"), `{"id":"l-1"}`, nil), 202, ""},
		{"over the rate limit", post2(p.data("/inbox/limited"), `{"id":"l-2"}`, nil), 429, ""},

		{"replay without credentials", post2(p.admin("/admin/replay"), `{"topic":"x"}`, nil), 401, ""},
		{"replay without filter", post2(p.admin("/admin/replay"), `{}`, bearer), 400, "at least one filter"},
		{"replay bad field", post2(p.admin("/admin/replay"), `{"ids":["nope"]}`, bearer), 400, "Invalid request"},
		{"replay", post2(p.admin("/admin/replay"), `{"topic":"order.created"}`, bearer), 200, `"moved":0`},
		{"replay dry run", post2(p.admin("/admin/replay"), `{"topic":"order.created","dryRun":true}`, bearer), 200, `"wouldMove":0`},
		{"replay too large", post2(p.admin("/admin/replay"), `{"topics":["`+strings.Repeat("t", 2000)+`"]}`, bearer), 413, "1024 bytes"},
		{"transform test", post2(p.admin("/admin/transform/test"), `{"expression":"$.n * 2","payload":{"n":21}}`, bearer), 200, `"result":42`},
		{"transform test invalid", post2(p.admin("/admin/transform/test"), `{"expression":"$.n +","payload":{}}`, bearer), 400, "Invalid expression"},
		{"whoami", call{method: http.MethodGet, url: p.admin("/admin/whoami"), header: bearer}, 200, `"role":"admin"`},
		{"whoami without credentials", call{method: http.MethodGet, url: p.admin("/admin/whoami")}, 401, ""},
		{"overview", call{method: http.MethodGet, url: p.admin("/admin/overview"), header: bearer}, 200, `"outbox"`},
		{"list inbox", call{method: http.MethodGet, url: p.admin("/admin/messages?table=inbox&limit=5"), header: bearer}, 200, `"items"`},
		{"list outbox", call{method: http.MethodGet, url: p.admin("/admin/messages?table=outbox"), header: bearer}, 200, `"items"`},
		{"list without table", call{method: http.MethodGet, url: p.admin("/admin/messages?limit=2"), header: bearer}, 200, `"items"`},
		{"one row unknown", call{method: http.MethodGet, url: p.admin("/admin/messages/3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10?table=outbox"), header: bearer}, 404, ""},
		{"list bad table", call{method: http.MethodGet, url: p.admin("/admin/messages?table=bogus"), header: bearer, malformed: true}, 400, "table"},
		{"replay jobs", call{method: http.MethodGet, url: p.admin("/admin/replay"), header: bearer}, 200, `"items"`},
		{"transform test without credentials", post2(p.admin("/admin/transform/test"), `{"expression":"1","payload":{}}`, nil), 401, ""},
	}
	for _, tc := range cases {
		resp, body := p.api.do(tc.call)
		require.Equal(t, tc.status, resp.StatusCode, "%s: %s", tc.name, body)
		require.Contains(t, string(body), tc.body, tc.name)
		switch tc.status {
		case http.StatusTooManyRequests:
			require.Regexp(t, `^[0-9]+$`, resp.Header.Get("Retry-After"), tc.name)
		case http.StatusAccepted:
			if !strings.Contains(string(body), "filtered") {
				require.NotEmpty(t, resp.Header.Get("X-Correlation-Id"), tc.name)
			}
		}
	}
}

// TestOpenAPIAnswersWhileDraining holds a request in flight on the data
// port, stops the binary, and checks the 503 answers of the drain
// against docs/openapi.yaml.
func TestOpenAPIAnswersWhileDraining(t *testing.T) {
	t.Parallel()
	p := startOpenAPIProcess(t)
	// The handler waits for the rest of this body, which keeps the drain
	// open until the test sends it.
	conn := holdBody(t, fmt.Sprintf("127.0.0.1:%d", p.port), "/inbox/open", 30)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))

	require.Eventually(t, func() bool {
		resp, err := http.Get(p.data("/"))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	}, 30*time.Second, 20*time.Millisecond, "the data port answers 503 while it drains")
	for _, c := range []call{
		{method: http.MethodGet, url: p.data("/")},
		post2(p.data("/inbox/open"), `{"id":"late"}`, nil),
	} {
		resp, body := p.api.do(c)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s %s", c.method, c.url)
		var e map[string]string
		require.NoError(t, json.Unmarshal(body, &e))
		require.Equal(t, "QueueBox is shutting down", e["error"])
	}
	// The rest of the held request: 30 bytes, as holdBody announced.
	_, err := fmt.Fprint(conn, `{"id":"drained-1","pad":"xxx"}`)
	require.NoError(t, err)
	require.Equal(t, 0, p.wait(t, 30*time.Second))
}

// holdBody opens a connection that sends the headers of a POST with
// Expect: 100-continue and Content-Length n, and returns once the handler
// has started to read the body ("100 Continue"): the request is in
// flight, and holds its share of the body budget, until the connection
// closes.
func holdBody(t *testing.T, addr, path string, n int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n", path, n)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	status, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, status, "100 Continue")
	return conn
}

// TestOpenAPIAnswersWhenTheBodyBudgetIsSpent fills the data port's budget
// of bodies in flight (64 bodies of inbox.maxBodyBytes) and checks the
// 503 with Retry-After that the next body gets against the document.
func TestOpenAPIAnswersWhenTheBodyBudgetIsSpent(t *testing.T) {
	t.Parallel()
	p := startOpenAPIProcess(t)
	addr := fmt.Sprintf("127.0.0.1:%d", p.port)
	for range 64 {
		holdBody(t, addr, "/inbox/open", 4096)
	}
	resp, body := p.api.do(post2(p.data("/inbox/open"), `{"id":"over-budget"}`, nil))
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
	require.Equal(t, "1", resp.Header.Get("Retry-After"))
	require.JSONEq(t, `{"error":"Too many request bodies in flight; retry later"}`, string(body))
	resp, body = p.api.do(call{method: http.MethodGet, url: p.data("/")})
	require.Equal(t, http.StatusOK, resp.StatusCode, "a request without a body reserves nothing: %s", body)
}

// TestOpenAPIAnswersWhenNotReady starts queuebox-ingest with a RabbitMQ
// source whose broker does not answer, and checks the 503 of the
// readiness routes against the document.
func TestOpenAPIAnswersWhenNotReady(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	p := startServing(t, "ingest", with(db.env(),
		"QUEUEBOX_SOURCES_ORDERS_TYPE", "rabbitmq", "QUEUEBOX_SOURCES_ORDERS_QUEUENAME", "openapi-orders",
		"QUEUEBOX_SOURCES_ORDERS_CONNECTIONURL", fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", freePort(t)),
		"QUEUEBOX_SOURCES_ORDERS_IDEMPOTENCYKEYPATH", "$.id", "QUEUEBOX_SOURCES_ORDERS_TOPIC", "inbox.orders"))
	api := newAPICheck(t, fmt.Sprintf("http://127.0.0.1:%d", p.port))
	for _, path := range []string{"/health/ready", "/health"} {
		resp, body := api.do(call{method: http.MethodGet, url: p.url(path)})
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s: %s", path, body)
		var report struct {
			Status     string
			Components map[string]struct{ Status string }
		}
		require.NoError(t, json.Unmarshal(body, &report))
		require.Equal(t, "unhealthy", report.Status)
		require.Equal(t, "down", report.Components["rabbitmq.orders"].Status)
	}
	resp, _ := api.do(call{method: http.MethodGet, url: p.url("/health/live")})
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
