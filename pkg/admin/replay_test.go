package admin_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
)

type fixture struct {
	e     *echo.Echo
	store *memReplayer
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// verifier checks the credentials of an auth block, as the wiring builds
// it from admin.auth.
func verifier(block *auth.Options) *auth.Verifier {
	v, err := auth.New(block)
	if err != nil {
		panic(err)
	}
	return v
}

func bearer(token string) *auth.Verifier {
	return verifier(&auth.Options{Kind: auth.KindBearer, Token: secret.New(token)})
}

func instant(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// newFixture mounts the replay route over an outbox in memory that holds
// rows 1 to 6: final rows of three topics at several times, and a pending
// and a processing row that no replay may move.
func newFixture(t *testing.T, cfg admin.Options) fixture {
	t.Helper()
	store := &memReplayer{}
	router, err := deliver.NewRouter([]deliver.RouteSpec{
		{TopicPattern: "invoice.*", Destinations: []string{"billing"}},
		{TopicPattern: "**", Destinations: []string{"archive"}},
	}, map[string]deliver.DestinationSpec{"billing": {Name: "billing"}, "archive": {Name: "archive"}})
	require.NoError(t, err)
	h, err := admin.NewReplay(cfg, store, router.DestinationsOf, quiet())
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, cfg, admin.Routes{Replay: h}, quiet())
	store.add(
		memRow{id: "00000000-0000-0000-0000-000000000001", topic: "invoice.paid", state: queuebox.StateDead, created: instant("2026-09-24T09:00:00Z")},
		memRow{id: "00000000-0000-0000-0000-000000000002", topic: "invoice.paid", state: queuebox.StateSent, created: instant("2026-09-24T13:00:00Z")},
		memRow{id: "00000000-0000-0000-0000-000000000003", topic: "invoice.item.added", state: queuebox.StateDead, created: instant("2026-09-24T10:00:00Z")},
		memRow{id: "00000000-0000-0000-0000-000000000004", topic: "invoice.paid", state: queuebox.StatePending, created: instant("2026-09-24T10:00:00Z")},
		memRow{id: "00000000-0000-0000-0000-000000000005", topic: "invoice.paid", state: queuebox.StateProcessing, created: instant("2026-09-24T10:00:00Z")},
		memRow{id: "00000000-0000-0000-0000-000000000006", topic: "order.created", state: queuebox.StateSent, created: instant("2026-09-24T11:00:00Z")})
	return fixture{e: e, store: store}
}

func (f fixture) post(t *testing.T, body string, header ...string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/admin/replay", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	f.e.ServeHTTP(rec, req)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

// pending returns the last digit of the ids of the rows a replay moved.
func (f fixture) pending(t *testing.T) []string {
	t.Helper()
	var ids []string
	for _, id := range f.store.moved() {
		ids = append(ids, id[len(id)-1:])
	}
	return ids
}

func enabled() admin.Options {
	return admin.Options{Enabled: true, Auth: bearer("s3cret"), AuthKind: auth.KindBearer, MaxPayloadBytes: 256}
}

var authz = []string{"Authorization", "Bearer s3cret"}

func TestReplayByIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, enabled())
	code, body := f.post(t, `{"ids":["00000000-0000-0000-0000-000000000001","00000000-0000-0000-0000-000000000004"],"unknown":1}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":1}`, body, "a pending row never moves")
	require.Equal(t, []string{"1"}, f.pending(t))
}

func TestReplayByDestinationAndWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, enabled())
	code, body := f.post(t, `{"destination":"billing","createdAfter":"2026-09-24T08:00:00Z","createdBefore":"2026-09-24T12:00:00Z"}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":1}`, body, "invoice.item.added routes to archive; row 2 is outside the window")
	require.Equal(t, []string{"1"}, f.pending(t))

	code, body = f.post(t, `{"destination":"archive","topics":["order.created","invoice.paid"]}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":1}`, body, "topics narrow the destination's topics")
	code, body = f.post(t, `{"destination":"billing","topics":["order.created"]}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":0}`, body, "no overlap moves nothing")
	code, body = f.post(t, `{"destination":"nowhere"}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":0}`, body)
}

// fanOutReplay mounts the replay route over store with the route
// payment.* -> [ledger, billing], followed by more.
func fanOutReplay(t *testing.T, store *memReplayer, more ...deliver.RouteSpec) fixture {
	t.Helper()
	routes := append([]deliver.RouteSpec{{TopicPattern: "payment.*", Destinations: []string{"ledger", "billing"}}}, more...)
	router, err := deliver.NewRouter(routes,
		map[string]deliver.DestinationSpec{"ledger": {Name: "ledger"}, "billing": {Name: "billing"}})
	require.NoError(t, err)
	h, err := admin.NewReplay(enabled(), store, router.DestinationsOf, quiet())
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, enabled(), admin.Routes{Replay: h}, quiet())
	return fixture{e: e, store: store}
}

// A replay of one destination of a fan-out moves that destination's
// deliveries only: the rows routed to it by their destination column,
// and a row not routed yet whose route names it, which then goes to that
// destination alone. The other destination's rows stay where they are.
func TestReplayOneDestinationOfAFanOut(t *testing.T) {
	t.Parallel()
	store := &memReplayer{}
	f := fanOutReplay(t, store)
	at := instant("2026-09-24T09:00:00Z")
	store.add(
		memRow{id: "00000000-0000-0000-0000-000000000001", topic: "payment.paid", dest: "ledger", state: queuebox.StateSent, created: at},
		memRow{id: "00000000-0000-0000-0000-000000000002", topic: "payment.paid", dest: "billing", state: queuebox.StateDead, created: at},
		memRow{id: "00000000-0000-0000-0000-000000000003", topic: "payment.paid", dest: "billing", state: queuebox.StateSent, created: at},
		memRow{id: "00000000-0000-0000-0000-000000000004", topic: "payment.paid", state: queuebox.StateSent, created: at},
		memRow{id: "00000000-0000-0000-0000-000000000005", topic: "other", state: queuebox.StateSent, created: at})
	code, body := f.post(t, `{"destination":"billing","states":["sent"],"createdAfter":"2026-09-24T00:00:00Z"}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":2,"added":1}`, body, "row 1 went to ledger only: billing gets a delivery of it")
	require.Equal(t, []string{"3", "4"}, f.pending(t), "billing's sent rows, and the row not routed yet")
	added := store.rows[len(store.rows)-1]
	require.Equal(t, memRow{id: "00000000-0000-0000-0000-000000000001-billing", topic: "payment.paid", dest: "billing",
		origin: "00000000-0000-0000-0000-000000000001", state: queuebox.StatePending, created: at}, added)
	require.Equal(t, "billing", store.rows[3].dest, "the row not routed yet now goes to billing alone")
	require.Equal(t, "ledger", store.rows[0].dest)

	code, body = f.post(t, `{"destination":"billing","dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"wouldMove":1,"would_move":1}`, body, "the dead billing delivery is left, and every message has its billing delivery")
}

func TestReplayByTopic(t *testing.T) {
	t.Parallel()
	f := newFixture(t, enabled())
	code, body := f.post(t, `{"topic":"invoice.paid"}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":2}`, body)
	require.Equal(t, []string{"1", "2"}, f.pending(t))
}

func TestReplayAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, enabled())
	cases := []struct {
		name, body string
		header     []string
		code       int
		want       string
	}{
		{"no filter", `{}`, authz, 400, `{"error":"A replay needs at least one filter."}`},
		{"only unknown fields", `{"destinaton":"billing"}`, authz, 400, `{"error":"A replay needs at least one filter."}`},
		{"not json", `{`, authz, 400, ""},
		{"wrong type", `{"ids":"x"}`, authz, 400, ""},
		{"bad uuid", `{"ids":["nope"]}`, authz, 400, ""},
		{"bad instant", `{"createdAfter":"yesterday"}`, authz, 400, ""},
		{"no credentials", `{"topic":"x"}`, nil, 401, ""},
		{"wrong token", `{"topic":"x"}`, []string{"Authorization", "Bearer nope"}, 401, ""},
		{"too large", `{"topic":"` + strings.Repeat("x", 300) + `"}`, authz, 413, `{"error":"Request body exceeds 256 bytes"}`},
	}
	for _, tc := range cases {
		code, body := f.post(t, tc.body, tc.header...)
		require.Equal(t, tc.code, code, tc.name)
		if tc.want != "" {
			require.JSONEq(t, tc.want, body, tc.name)
		}
		if tc.code == 400 && tc.want == "" {
			require.Contains(t, body, `"error":"Invalid request: `, tc.name)
		}
		require.NotContains(t, body, "s3cret", tc.name)
	}
	require.Empty(t, f.pending(t), "no failed request moved a row")
}

func TestReplayWithHMACOnTheRawBody(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	cfg.Auth = verifier(&auth.Options{Kind: auth.KindHMAC, Secret: secret.New("k"), HeaderName: "X-Signature",
		Algorithm: "HmacSHA256", SignaturePayloadFormat: auth.PayloadBody})
	cfg.AuthKind = auth.KindHMAC
	f := newFixture(t, cfg)
	body := `{"ids":["00000000-0000-0000-0000-000000000003"]}`
	mac := hmac.New(sha256.New, []byte("k"))
	mac.Write([]byte(body))
	code, resp := f.post(t, body, "X-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	require.Equal(t, http.StatusOK, code, resp)
	require.JSONEq(t, `{"moved":1}`, resp)
	code, _ = f.post(t, body, "X-Signature", "sha256=00")
	require.Equal(t, http.StatusUnauthorized, code)
}

func TestDisabledAdminHasNoRoutes(t *testing.T) {
	t.Parallel()
	e := echo.New()
	admin.Mount(e, admin.Options{Enabled: false}, admin.Routes{Replay: func(echo.Context) error { return nil }}, quiet())
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/replay", strings.NewReader(`{"topic":"x"}`)))
	require.Equal(t, http.StatusNotFound, rec.Code)
}

// With admin.insecure true a request needs no credentials, even when an
// admin.auth block is set beside it.
func TestInsecureAdminTakesRequestsWithoutCredentials(t *testing.T) {
	t.Parallel()
	f := newFixture(t, admin.Options{Enabled: true, Insecure: true, Auth: bearer("s3cret"), MaxPayloadBytes: 4096})
	code, body := f.post(t, `{"ids":["00000000-0000-0000-0000-000000000001"]}`)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":1}`, body)
}

func TestAdminWithoutAuthNeedsInsecure(t *testing.T) {
	t.Parallel()
	_, err := admin.NewReplay(admin.Options{Enabled: true}, nil, nil, quiet())
	require.ErrorContains(t, err, "admin.auth")
	_, err = admin.NewReplay(admin.Options{Enabled: true, Insecure: true, MaxPayloadBytes: 10}, nil, nil, quiet())
	require.NoError(t, err)
}

// A replay of a destination that joined a route after the messages were
// routed adds a delivery to it for each selected message that has none:
// the dry run says how many it would add beside the moves, the replay
// adds them after the moves, and a second replay adds nothing more and
// moves the deliveries the first added once they are sent.
func TestReplayBackfillsANewDestination(t *testing.T) {
	t.Parallel()
	store := &memReplayer{}
	f := fanOutReplay(t, store)
	at := instant("2026-09-24T09:00:00Z")
	store.add(
		memRow{id: "00000000-0000-0000-0000-000000000001", topic: "payment.paid", dest: "ledger", state: queuebox.StateSent, created: at},
		memRow{id: "00000000-0000-0000-0000-000000000002", topic: "payment.paid", dest: "ledger", state: queuebox.StateSent, created: at},
		memRow{id: "00000000-0000-0000-0000-000000000003", topic: "payment.paid", dest: "ledger", state: queuebox.StateDead, created: at})
	code, body := f.post(t, `{"destination":"billing","states":["sent"],"dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"wouldMove":0,"would_move":0,"wouldAdd":2}`, body)
	require.Len(t, store.rows, 3, "a dry run adds nothing")

	code, body = f.post(t, `{"destination":"billing","states":["sent"]}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":0,"added":2}`, body)
	require.Empty(t, f.pending(t), "nothing of ledger moved")
	store.mu.Lock()
	for i := range store.rows {
		if store.rows[i].dest == "billing" {
			store.rows[i].state = queuebox.StateSent // billing received them
		}
	}
	store.mu.Unlock()
	code, body = f.post(t, `{"destination":"billing","states":["sent"]}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":2}`, body, "a second replay resends billing's deliveries and adds none")
	require.Len(t, store.rows, 5)
}

// A selection above one batch becomes a job that also adds the missing
// deliveries, counted in matched and in toAdd.
func TestReplayBackfillJob(t *testing.T) {
	t.Parallel()
	store := &memReplayer{}
	f := fanOutReplay(t, store)
	at := instant("2026-09-24T09:00:00Z")
	for i := range admin.ReplayBatchRows {
		store.add(memRow{id: fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1), topic: "payment.paid", dest: "ledger",
			state: queuebox.StateSent, created: at})
	}
	store.add(memRow{id: "00000000-0000-0000-0000-100000000000", topic: "payment.paid", dest: "billing", state: queuebox.StateDead, created: at})
	code, body := f.post(t, `{"destination":"billing"}`, authz...)
	require.Equal(t, http.StatusAccepted, code, body)
	require.JSONEq(t, fmt.Sprintf(`{"job":"00000000-0000-0000-0000-000000000001","matched":%d,"toAdd":%d}`,
		admin.ReplayBatchRows+1, admin.ReplayBatchRows), body)
	require.Len(t, store.jobs, 1)
	require.True(t, store.jobs[0].Filter.AddMissing, "the job adds the missing deliveries after its moves")
	require.Equal(t, "billing", store.jobs[0].Filter.Destination)
	require.False(t, store.jobs[0].Filter.Backfill)
}

// An outbox without the lane columns has nothing to add: its rows have
// no destination, so a destination replay moves them by topic as before;
// a route that fans out to the destination cannot be served (409).
func TestReplayBackfillWithoutLanes(t *testing.T) {
	t.Parallel()
	store := &memReplayer{noLanes: true}
	f := fanOutReplay(t, store, deliver.RouteSpec{TopicPattern: "audit.*", Destinations: []string{"billing"}})
	at := instant("2026-09-24T09:00:00Z")
	store.add(memRow{id: "00000000-0000-0000-0000-000000000001", topic: "audit.seen", state: queuebox.StateSent, created: at})
	code, body := f.post(t, `{"destination":"billing","topic":"audit.seen"}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":1}`, body)

	store.add(memRow{id: "00000000-0000-0000-0000-000000000002", topic: "payment.paid", state: queuebox.StateSent, created: at})
	code, body = f.post(t, `{"destination":"billing","states":["sent"]}`, authz...)
	require.Equal(t, http.StatusConflict, code, body)
	require.Contains(t, body, "no lane columns (destination, origin_id)")
	require.Contains(t, body, "payment.paid")
	require.Equal(t, []string{"1"}, f.pending(t), "the refused replay moved nothing")
}

// TestReplayTopicIsAGlob: topic has the meaning it has in routes, the CLI
// and the Messages page: `*` is one segment, `**` any text, and a topic
// without either matches only itself. A bad pattern is a 400 naming topic.
func TestReplayTopicIsAGlob(t *testing.T) {
	t.Parallel()
	cases := []struct{ body, want string }{
		{`{"topic":"invoice.*","dryRun":true}`, `{"wouldMove":2,"would_move":2}`},
		{`{"topic":"invoice.**","dryRun":true}`, `{"wouldMove":3,"would_move":3}`},
		{`{"topic":"**","topics":["order.created"],"dryRun":true}`, `{"wouldMove":1,"would_move":1}`},
		{`{"topic":"invoice","dryRun":true}`, `{"wouldMove":0,"would_move":0}`},
	}
	for _, tc := range cases {
		f := newFixture(t, enabled())
		code, body := f.post(t, tc.body, authz...)
		require.Equal(t, http.StatusOK, code, tc.body)
		require.JSONEq(t, tc.want, body, tc.body)
	}
	f := newFixture(t, enabled())
	code, body := f.post(t, `{"topic":"invoice.*"}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":2}`, body)
	require.Equal(t, []string{"1", "2"}, f.pending(t))
	code, body = f.post(t, `{"topic":"a.***"}`, authz...)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, "Invalid request: topic: ")
}
