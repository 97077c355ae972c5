package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// deliverConfig writes a configuration file for queuebox-deliver and
// returns the environment that starts it with that file.
func deliverConfig(t *testing.T, db database, yaml string) map[string]string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "queuebox.yml")
	require.NoError(t, os.WriteFile(file, []byte(yaml), 0o600))
	return with(db.env(), "QUEUEBOX_CONFIG_FILE", file, "QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10")
}

// waitOutbox waits until the row with the given topic reaches state and
// returns its attempt and last_error.
func waitOutbox(t *testing.T, db database, topic, state string) (int, string) {
	t.Helper()
	conn := db.connect(t)
	var attempt int
	var lastError string
	require.Eventually(t, func() bool {
		var got string
		err := conn.QueryRow(context.Background(),
			`SELECT state, attempt, coalesce(last_error, '') FROM outbox WHERE topic = $1`, topic).
			Scan(&got, &attempt, &lastError)
		return err == nil && got == state
	}, 30*time.Second, 10*time.Millisecond, "%s to %s", topic, state)
	return attempt, lastError
}

// TestAuditDeliverHeadersAuthAndURL checks a delivery end to end through
// the binary: the POST to baseUrl followed by path, the standard headers,
// a static header, basic auth, and a row header that wins over both.
func TestAuditDeliverHeadersAuthAndURL(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusNoContent))
	env := deliverConfig(t, db, fmt.Sprintf(`
destinations:
  legacy:
    type: http
    baseUrl: %s/api
    path: /events
    headers:
      X-Source: queuebox
      X-Team: static
    auth:
      type: basic
      username: queuebox
      password: pa55word
routes:
  - topicPattern: "order.*"
    destination: legacy
`, rc.URL))
	startServing(t, "deliver", env)
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, key, payload, headers) VALUES
		('order.created', 'cust-42', '{"amount":42}', '{"x-team":"row"}'),
		('order.paid', NULL, '{"amount":1}', '{"Authorization":"Bearer row-token"}')`)
	require.NoError(t, err)
	waitOutbox(t, db, "order.created", "sent")
	waitOutbox(t, db, "order.paid", "sent")

	byTopic := map[string]brokertest.HTTPRequest{}
	for _, r := range rc.Requests() {
		byTopic[r.Header.Get("X-Topic")] = r
	}
	created, paid := byTopic["order.created"], byTopic["order.paid"]
	require.Equal(t, "/api/events", created.Path)
	require.JSONEq(t, `{"amount":42}`, created.Body)
	require.Equal(t, "application/json", created.Header.Get("Content-Type"))
	require.Equal(t, "0", created.Header.Get("X-Attempt"))
	require.Equal(t, "cust-42", created.Header.Get("X-Message-Key"))
	require.Equal(t, "queuebox", created.Header.Get("X-Source"))
	require.Equal(t, []string{"row"}, created.Header.Values("X-Team"), "a row header wins over a static header")
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("queuebox:pa55word"))
	require.Equal(t, []string{basic}, created.Header.Values("Authorization"))
	require.Equal(t, []string{"Bearer row-token"}, paid.Header.Values("Authorization"), "a row header wins over the auth header")
	_, hasKey := paid.Header["X-Message-Key"]
	require.False(t, hasKey, "a row without key sends no X-Message-Key")
}

// newTokenServer starts an OAuth2 token endpoint that hands out tok-1,
// tok-2... in the order the token requests arrive.
func newTokenServer(t *testing.T) *brokertest.HTTPReceiver {
	t.Helper()
	return brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
		return brokertest.Answer{Header: http.Header{"Content-Type": {"application/json"}},
			Body: fmt.Sprintf(`{"access_token":"tok-%d","token_type":"Bearer","expires_in":3600}`, r.Seq+1)}
	})
}

// tokenForms returns the form of each token request, in arrival order.
func tokenForms(t *testing.T, ts *brokertest.HTTPReceiver) []url.Values {
	t.Helper()
	var forms []url.Values
	for _, r := range ts.Requests() {
		form, err := url.ParseQuery(r.Body)
		require.NoError(t, err)
		forms = append(forms, form)
	}
	return forms
}

// TestAuditDeliverOAuth2CachesAndRefreshesOn401: the client credentials
// grant runs once, its token serves the next deliveries, and a 401 to the
// cached token fetches a new one.
func TestAuditDeliverOAuth2CachesAndRefreshesOn401(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	ts := newTokenServer(t)
	rc := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		if r.Header.Get("Authorization") == "Bearer tok-2" {
			return http.StatusOK
		}
		return http.StatusUnauthorized
	}))

	env := deliverConfig(t, db, fmt.Sprintf(`
destinations:
  protected:
    type: http
    baseUrl: %s
    path: /events
    auth:
      type: oauth2
      clientId: queuebox
      clientSecret: cl1ent-s3cret
      tokenUrl: %s/oauth/token
      scope: api:write
      extraParams:
        audience: https://api.example.com
routes:
  - topicPattern: "**"
    destination: protected
`, rc.URL, ts.URL))
	startServing(t, "deliver", env)
	conn := db.connect(t)
	_, err := conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('a.one', '{}')`)
	require.NoError(t, err)
	waitOutbox(t, db, "a.one", "sent")
	_, err = conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('a.two', '{}')`)
	require.NoError(t, err)
	waitOutbox(t, db, "a.two", "sent")

	forms := tokenForms(t, ts)
	require.Len(t, forms, 2, "one grant, then one refresh after the 401; the second row reuses the cached token")
	for _, f := range forms {
		require.Equal(t, "client_credentials", f.Get("grant_type"))
		require.Equal(t, "queuebox", f.Get("client_id"))
		require.Equal(t, "cl1ent-s3cret", f.Get("client_secret"))
		require.Equal(t, "api:write", f.Get("scope"))
		require.Equal(t, "https://api.example.com", f.Get("audience"))
	}
}

// TestAuditDeliverFailureIsRedactedAndTruncated: a failed publish stores
// the status and the start of the body in last_error, with the secrets
// of the configuration masked and the text cut to http.maxErrorBodyBytes.
func TestAuditDeliverFailureIsRedactedAndTruncated(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	srv := brokertest.NewHTTPReceiver(t, brokertest.Static(brokertest.Answer{Status: http.StatusBadGateway,
		Body: fmt.Sprintf(`{"echo":"Bearer st4tic-t0ken","password":"hunter2","pad":"%0400d"}`, 0)}))
	env := deliverConfig(t, db, fmt.Sprintf(`
http:
  maxErrorBodyBytes: 200
destinations:
  flaky:
    type: http
    baseUrl: %s
    auth:
      type: header
      headerValue: Bearer st4tic-t0ken
routes:
  - topicPattern: "**"
    destination: flaky
`, srv.URL))
	startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(),
		`INSERT INTO outbox (topic, payload, max_attempts) VALUES ('x.y', '{}', 1)`)
	require.NoError(t, err)
	attempt, lastError := waitOutbox(t, db, "x.y", "dead")
	require.Equal(t, 1, attempt)
	require.Contains(t, lastError, "502")
	require.NotContains(t, lastError, "st4tic-t0ken")
	require.NotContains(t, lastError, "hunter2")
	require.LessOrEqual(t, len(lastError), 200)
}

// TestDeliverStripsControlCharactersFromLastError: a receiver's error body
// with terminal escape sequences (C0 ESC and BEL, C1 CSI, DEL, carriage
// return) is stored without them, and keeps its tabs and newlines, so an
// operator who prints last_error in a shell sees text, not commands.
func TestDeliverStripsControlCharactersFromLastError(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	srv := brokertest.NewHTTPReceiver(t, brokertest.Static(brokertest.Answer{Status: http.StatusBadGateway,
		Body: "\x1b[2J\x1b]0;owned\x07fail\u009b31m\x7fed\r\n\tline two"}))
	env := deliverConfig(t, db, fmt.Sprintf(`
destinations:
  flaky:
    type: http
    baseUrl: %s
routes:
  - topicPattern: "**"
    destination: flaky
`, srv.URL))
	startServing(t, "deliver", env)
	_, err := db.connect(t).Exec(context.Background(),
		`INSERT INTO outbox (topic, payload, max_attempts) VALUES ('x.ctl', '{}', 1)`)
	require.NoError(t, err)
	_, lastError := waitOutbox(t, db, "x.ctl", "dead")
	require.Contains(t, lastError, "[2J]0;ownedfail31med\n\tline two")
	for _, r := range lastError {
		require.False(t, r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f, "control character %U in %q", r, lastError)
	}
}
