package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bodyReceiver is an HTTP destination that records each delivery's body
// by X-Message-Id.
type bodyReceiver struct {
	mu     sync.Mutex
	bodies map[string][]string
	srv    *httptest.Server
}

func newBodyReceiver(t *testing.T) *bodyReceiver {
	t.Helper()
	r := &bodyReceiver{bodies: map[string][]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		id := req.Header.Get("X-Message-Id")
		r.bodies[id] = append(r.bodies[id], string(b))
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *bodyReceiver) got(id string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies[id]...)
}

// deliveries returns how many deliveries each id got.
func (r *bodyReceiver) deliveries() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for id, b := range r.bodies {
		out[id] = len(b)
	}
	return out
}

const (
	wbAdmin  = "Bearer adm1n-t0ken-0123456789"
	wbViewer = "Bearer v1ewer-t0ken-0123456789"
)

// workbenchEnv is the environment of a queuebox with the admin routes,
// both credentials and one HTTP destination for every topic.
func workbenchEnv(db database, receiverURL string) map[string]string {
	return with(destinationEnv(db.env(), receiverURL),
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer",
		"QUEUEBOX_ADMIN_AUTH_TOKEN", "adm1n-t0ken-0123456789", "QUEUEBOX_ADMIN_VIEWER_TOKEN", "v1ewer-t0ken-0123456789")
}

func adminCall(t *testing.T, method, url, authorization, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", authorization)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestWorkbenchListShowResendDiscard: through the built binary, an
// operator pages the dead rows, opens one, resends it with a corrected
// payload that the receiver then gets, discards another, and the viewer
// credential reads but gets 403 on a write.
func TestWorkbenchListShowResendDiscard(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rcv := newBodyReceiver(t)
	p := startServing(t, "queuebox", workbenchEnv(db, rcv.srv.URL))
	conn := db.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload, state, attempt, last_error)
		SELECT 'order.created', jsonb_build_object('v', 1, 'n', n), 'dead', 5, 'HTTP 500 from receiver'
		FROM generate_series(1, 7) AS n`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload, state) VALUES ('order.created', '{}', 'sent')`)
	require.NoError(t, err)

	var ids []string
	next := ""
	for {
		url := p.url("/admin/messages?state=dead&limit=3&error=http%20500")
		if next != "" {
			url += "&cursor=" + next
		}
		code, body := adminCall(t, http.MethodGet, url, wbViewer, "")
		require.Equal(t, http.StatusOK, code, body)
		var page struct {
			Items []struct {
				ID, State, Destination string
			}
			NextCursor *string
		}
		require.NoError(t, json.Unmarshal([]byte(body), &page))
		for _, it := range page.Items {
			require.Equal(t, "dead", it.State)
			require.Equal(t, "webhook", it.Destination)
			ids = append(ids, it.ID)
		}
		if page.NextCursor == nil {
			break
		}
		next = *page.NextCursor
	}
	require.Len(t, ids, 7)

	code, body := adminCall(t, http.MethodGet, p.url("/admin/messages/"+ids[0]), wbViewer, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"payload":{"n":7,"v":1}`)
	require.Contains(t, body, `"route":"**"`)

	code, _ = adminCall(t, http.MethodPost, p.url("/admin/messages/"+ids[0]+"/resend"), wbViewer, `{"payload":{"v":2}}`)
	require.Equal(t, http.StatusForbidden, code, "the viewer may not write")
	code, body = adminCall(t, http.MethodPost, p.url("/admin/messages/"+ids[0]+"/resend"), wbAdmin, `{"payload":{"v":2,"fixed":true}}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Eventually(t, func() bool { return len(rcv.got(ids[0])) == 1 }, 60*time.Second, 20*time.Millisecond)
	require.JSONEq(t, `{"v":2,"fixed":true}`, rcv.got(ids[0])[0], "the receiver gets the corrected payload")
	code, _ = adminCall(t, http.MethodPost, p.url("/admin/messages/"+ids[1]+"/resend?table=outbox"), wbAdmin, "")
	require.Equal(t, http.StatusOK, code)
	code, _ = adminCall(t, http.MethodPost, p.url("/admin/messages/"+ids[1]+"/resend"), wbAdmin, "")
	require.Equal(t, http.StatusConflict, code, "a row that already moved answers 409")

	code, body = adminCall(t, http.MethodPost, p.url("/admin/messages/"+ids[2]+"/discard"), wbAdmin, "")
	require.Equal(t, http.StatusOK, code, body)
	code, body = adminCall(t, http.MethodGet, p.url("/admin/messages?state=dead"), wbAdmin, "")
	require.Equal(t, http.StatusOK, code)
	require.NotContains(t, body, ids[2], "a discarded row is hidden")
	code, body = adminCall(t, http.MethodGet, p.url("/admin/messages?state=dead&discarded=true"), wbAdmin, "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, ids[2])

	code, body = adminCall(t, http.MethodGet, p.url("/admin/messages?state=stuck"), wbAdmin, "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, `"error":"state: `)
	code, body = adminCall(t, http.MethodGet, p.url("/admin/overview"), wbViewer, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"discarded":1`)
	require.Contains(t, p.out.String(), `old_payload_sha256`)
	require.NotContains(t, p.out.String(), `"fixed"`, "the log never holds a payload")
}

// TestWorkbenchReplayJobSurvivesAKill: a replay of 3,000 rows runs as a
// job; its process is killed (SIGKILL) while a batch waits on a row lock;
// a new process takes the job over when its lease runs out and finishes
// it; every row is moved and delivered exactly once, although the filter
// also selects sent rows (a row moved twice would be delivered twice).
func TestWorkbenchReplayJobSurvivesAKill(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rcv := newBodyReceiver(t)
	env := workbenchEnv(db, rcv.srv.URL)
	// The first process delivers nothing (ingest serves the admin routes
	// and runs replay jobs like every role), so a row it moved is still
	// pending when it dies, and the one delivery of each row comes from
	// the second.
	first := startServing(t, "ingest", env)
	conn := db.connect(t)
	ctx := context.Background()
	const rows = 3000
	_, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload, state)
		SELECT 'bulk', jsonb_build_object('n', n), CASE WHEN n % 2 = 0 THEN 'dead' ELSE 'sent' END
		FROM generate_series(1, $1) AS n`, rows)
	require.NoError(t, err)
	// Hold the row the third batch reaches (the job walks ids in order).
	var held string
	require.NoError(t, conn.QueryRow(ctx, `SELECT id::text FROM outbox ORDER BY id OFFSET 1200 LIMIT 1`).Scan(&held))
	holder, err := db.connect(t).Begin(ctx)
	require.NoError(t, err)
	_, err = holder.Exec(ctx, `SELECT 1 FROM outbox WHERE id = $1 FOR UPDATE`, held)
	require.NoError(t, err)

	code, body, _ := post(t, first.url("/admin/replay"), `{"topic":"bulk"}`, "Authorization", wbAdmin)
	require.Equal(t, http.StatusAccepted, code, body)
	var created struct {
		Job     string
		Matched int64
	}
	require.NoError(t, json.Unmarshal([]byte(body), &created))
	require.EqualValues(t, rows, created.Matched)
	jobState := func(p *process) (moved int64, done bool) {
		// Called inside Eventually: no require here.
		code, body := adminCall(t, http.MethodGet, p.url("/admin/replay/"+created.Job), wbViewer, "")
		var j struct {
			Moved int64
			Done  bool
		}
		if code != http.StatusOK || json.Unmarshal([]byte(body), &j) != nil {
			return -1, false
		}
		return j.Moved, j.Done
	}
	require.Eventually(t, func() bool {
		var waiting int
		_ = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		moved, _ := jobState(first)
		return waiting > 0 && moved == 1000
	}, 60*time.Second, 20*time.Millisecond, "two batches moved and the third waits on the held row")
	first.kill()
	require.NoError(t, holder.Rollback(ctx))

	second := startServing(t, "queuebox", env)
	require.Eventually(t, func() bool { _, done := jobState(second); return done }, 2*time.Minute, 100*time.Millisecond,
		"the new process finishes the job once the dead one's lease runs out")
	moved, _ := jobState(second)
	require.EqualValues(t, rows, moved)
	require.Eventually(t, func() bool { return len(rcv.deliveries()) == rows }, 2*time.Minute, 50*time.Millisecond)
	// Every moved row became pending and then sent once more: had a row
	// moved twice, the receiver would hold two deliveries of it. Give the
	// poller a last look before counting.
	var pending int
	require.Eventually(t, func() bool {
		return conn.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE state <> 'sent'`).Scan(&pending) == nil && pending == 0
	}, time.Minute, 50*time.Millisecond)
	for id, n := range rcv.deliveries() {
		require.Equal(t, 1, n, fmt.Sprintf("row %s delivered %d times", id, n))
	}
	code, body = adminCall(t, http.MethodGet, second.url("/admin/replay"), wbViewer, "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, created.Job)
}
