package admin_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fakeWorkbench answers the workbench routes from fixed rows and records
// what the routes asked. It is safe for concurrent use.
type fakeWorkbench struct {
	queuebox.WorkbenchStore // the methods a test does not reach panic
	mu                      sync.Mutex
	rows                    []queuebox.Message
	topics                  []string
	filters, moves          []queuebox.MessageFilter
	resent, discarded       []string
	resendErr               error
	pauses                  []queuebox.DestinationPause
	pauseReads              int
	overview                queuebox.Overview
	// ledger answers Attempts; asked records the ids of each call.
	ledger []queuebox.Attempt
	asked  [][]string
}

func (f *fakeWorkbench) Pauses(context.Context) ([]queuebox.DestinationPause, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pauseReads++
	return f.pauses, nil
}

func (f *fakeWorkbench) List(_ context.Context, flt queuebox.MessageFilter, limit int, after queuebox.Cursor) (queuebox.MessagePage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filters = append(f.filters, flt)
	var page queuebox.MessagePage
	for _, m := range f.rows {
		if flt.Message != "" && m.ID != flt.Message && (m.OriginID == nil || *m.OriginID != flt.Message) {
			continue
		}
		if flt.Destination != "" && m.Destination != flt.Destination &&
			(m.Destination != "" || !slices.Contains(flt.UnroutedTopics, m.Topic)) {
			continue
		}
		if (after.IsZero() || m.Sequence < after.Sequence) && len(page.Items) < limit {
			page.Items = append(page.Items, m)
		}
	}
	if len(page.Items) == limit {
		page.Next = &queuebox.Cursor{Sequence: page.Items[limit-1].Sequence}
	}
	return page, nil
}

func (f *fakeWorkbench) Topics(context.Context, queuebox.MessageFilter) ([]string, error) {
	return f.topics, nil
}

func (f *fakeWorkbench) Get(_ context.Context, _ queuebox.Table, id string) (queuebox.Message, error) {
	for _, m := range f.rows {
		if m.ID == id {
			return m, nil
		}
	}
	return queuebox.Message{}, queuebox.ErrNotFound
}

func (f *fakeWorkbench) Resend(_ context.Context, _ queuebox.Table, id string, edit queuebox.ResendEdit) (queuebox.ResendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.resendErr != nil {
		return queuebox.ResendResult{}, f.resendErr
	}
	f.resent = append(f.resent, id)
	return queuebox.ResendResult{OldPayload: []byte(`{"v":1}`), NewPayload: edit.Payload}, nil
}

func (f *fakeWorkbench) Move(_ context.Context, flt queuebox.MessageFilter, _ int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moves = append(f.moves, flt)
	return int64(len(flt.IDs)), nil
}

func (f *fakeWorkbench) Discard(_ context.Context, _ queuebox.Table, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.discarded = append(f.discarded, id)
	return nil
}

const (
	rowID    = "00000000-0000-0000-0000-00000000000a"
	viewerOK = "Bearer look"
)

// workbench serves the routes over store with the admin credential
// s3cret and the viewer credential look, and returns the log.
func workbench(t *testing.T, store *fakeWorkbench) (*echo.Echo, *bytes.Buffer) {
	t.Helper()
	cfg := enabled()
	cfg.Viewer = bearer("look")
	var logs bytes.Buffer
	routeOf := func(topic string) (string, []string) {
		switch {
		case strings.HasPrefix(topic, "billing."):
			return "billing.*", []string{"billing"}
		case strings.HasPrefix(topic, "payment."):
			return "payment.*", []string{"ledger", "billing"}
		}
		return "", nil
	}
	wb, err := admin.NewWorkbench(cfg, store, routeOf, slog.New(slog.NewJSONHandler(&logs, nil)))
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, cfg, admin.Routes{Workbench: wb}, quiet())
	return e, &logs
}

func call(e *echo.Echo, method, target, authorization, body string) (int, string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

// The viewer reads everything and writes nothing: 403, and the store is
// not asked. Without credentials every route answers 401.
func TestWorkbenchViewerReadsOnly(t *testing.T) {
	t.Parallel()
	store := &fakeWorkbench{}
	e, _ := workbench(t, store)
	code, body := call(e, http.MethodGet, "/admin/whoami", viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"name":"admin.viewer","role":"viewer"}`, body)
	code, body = call(e, http.MethodGet, "/admin/whoami", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"name":"admin.auth","role":"admin"}`, body)
	code, _ = call(e, http.MethodGet, "/admin/messages", viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	for _, path := range []string{"/admin/messages/" + rowID + "/resend", "/admin/messages/" + rowID + "/discard"} {
		code, _ = call(e, http.MethodPost, path, viewerOK, "")
		require.Equal(t, http.StatusForbidden, code, path)
		code, _ = call(e, http.MethodPost, path, "", "")
		require.Equal(t, http.StatusUnauthorized, code, path)
	}
	code, _ = call(e, http.MethodGet, "/admin/overview", "Bearer wrong", "")
	require.Equal(t, http.StatusUnauthorized, code)
	require.Empty(t, store.resent)
	require.Empty(t, store.discarded)
}

// A bad parameter answers 400 with its name first.
func TestWorkbenchNamesTheBadParameter(t *testing.T) {
	t.Parallel()
	e, _ := workbench(t, &fakeWorkbench{})
	for query, name := range map[string]string{
		"table=queue":              "table: ",
		"state=stuck":              "state: ",
		"table=inbox&state=sent":   "state: ",
		"limit=0":                  "limit: ",
		"limit=501":                "limit: ",
		"cursor=%21%21":            "cursor: ",
		"createdAfter=yesterday":   "createdAfter: ",
		"tpoic=a":                  "tpoic: ",
		"table=inbox&topic=a":      "topic: ",
		"source=stripe":            "source: ",
		"discarded=maybe":          "discarded: ",
		"table=inbox&destination=": "",
	} {
		code, body := call(e, http.MethodGet, "/admin/messages?"+query, "Bearer s3cret", "")
		if name == "" {
			require.Equal(t, http.StatusOK, code, query)
			continue
		}
		require.Equal(t, http.StatusBadRequest, code, query)
		require.Contains(t, body, `{"error":"`+name, query)
	}
	code, body := call(e, http.MethodGet, "/admin/messages/not-a-uuid", "Bearer s3cret", "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, `"id: `)
	code, _ = call(e, http.MethodGet, "/admin/messages/"+rowID, "Bearer s3cret", "")
	require.Equal(t, http.StatusNotFound, code)
}

// The list resolves a topic glob and a destination into topics, pages
// with an opaque cursor and names each row's destination.
func TestWorkbenchListPagesAndResolvesTopics(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 9, 24, 8, 0, 0, 0, time.UTC)
	store := &fakeWorkbench{topics: []string{"billing.paid", "billing.void", "orders.new"}}
	for i := range 3 {
		store.rows = append(store.rows, queuebox.Message{Table: queuebox.TableOutbox, ID: rowID[:35] + string(rune('a'+i)),
			State: queuebox.StateDead, Topic: "billing.paid", Sequence: int64(10 - i), CreatedAt: now, Payload: []byte(`{}`)})
	}
	e, _ := workbench(t, store)
	code, body := call(e, http.MethodGet, "/admin/messages?state=dead&topic=billing.p*&destination=billing&limit=2", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"destination":"billing"`)
	require.NotContains(t, body, `"payload"`, "no payload in a list")
	require.Equal(t, []string{"billing.paid"}, store.filters[0].Topics)
	require.Equal(t, []queuebox.State{queuebox.StateDead}, store.filters[0].States)
	cursor := body[strings.Index(body, `"nextCursor":"`)+len(`"nextCursor":"`):]
	cursor = cursor[:strings.Index(cursor, `"`)]
	code, body = call(e, http.MethodGet, "/admin/messages?limit=2&cursor="+cursor, "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `"nextCursor":null`)
	require.Equal(t, 1, strings.Count(body, `"id":`))

	code, body = call(e, http.MethodGet, "/admin/messages/"+store.rows[0].ID, viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"route":"billing.*"`)
	require.Contains(t, body, `"payload":{}`)
}

// A resend with an edit logs one line with the credential, the route, the
// id, the count and the digests of the payload before and after, never
// the payload; a wrong state answers 409.
func TestWorkbenchResendLogsDigestsNotPayloads(t *testing.T) {
	t.Parallel()
	store := &fakeWorkbench{}
	e, logs := workbench(t, store)
	code, body := call(e, http.MethodPost, "/admin/messages/"+rowID+"/resend", "Bearer s3cret",
		`{"payload":{"secretish":"v2"},"headers":{"X-A":"b"}}`)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"id":"`+rowID+`","state":"pending"}`, body)
	line := logs.String()
	require.Equal(t, 1, strings.Count(line, "\n"), line)
	oldSum, newSum := sha256.Sum256([]byte(`{"v":1}`)), sha256.Sum256([]byte(`{"secretish":"v2"}`))
	for _, want := range []string{`"credential":"admin.auth"`, `"route":"POST /admin/messages/{id}/resend"`,
		`"ids":["` + rowID + `"]`, `"count":1`, hex.EncodeToString(oldSum[:]), hex.EncodeToString(newSum[:])} {
		require.Contains(t, line, want)
	}
	require.NotContains(t, line, "secretish")

	code, _ = call(e, http.MethodPost, "/admin/messages/"+rowID+"/resend?table=inbox", "Bearer s3cret", `{"payload":{}}`)
	require.Equal(t, http.StatusBadRequest, code, "an inbox row takes no edit")
	store.resendErr = queuebox.ErrWrongState
	code, _ = call(e, http.MethodPost, "/admin/messages/"+rowID+"/resend", "Bearer s3cret", "")
	require.Equal(t, http.StatusConflict, code)
	code, body = call(e, http.MethodPost, "/admin/messages/"+rowID+"/discard", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"id":"`+rowID+`","discarded":true}`, body)
}

// fanOutRows are the rows of message m1 of a route payment.* ->
// [ledger, billing] (sent to ledger, dead at billing), and a row from
// before lanes of the same topic that has no destination.
func fanOutRows() []queuebox.Message {
	origin := rowID[:35] + "1"
	return []queuebox.Message{
		{Table: queuebox.TableOutbox, ID: origin, State: queuebox.StateSent, Topic: "payment.paid", Sequence: 7, Destination: "ledger"},
		{Table: queuebox.TableOutbox, ID: rowID[:35] + "2", State: queuebox.StateDead, Topic: "payment.paid", Sequence: 7,
			Destination: "billing", OriginID: &origin, Attempt: 1, LastError: ptr("HTTP 503")},
		{Table: queuebox.TableOutbox, ID: rowID[:35] + "3", State: queuebox.StateDead, Topic: "payment.paid", Sequence: 3},
	}
}

func ptr(s string) *string { return &s }

// The list names each row's destination (its own, else the routes'
// answer, with routed saying which) and its origin; the message view of
// any delivery lists every delivery of its message.
func TestWorkbenchShowsDestinationsAndDeliveries(t *testing.T) {
	t.Parallel()
	store := &fakeWorkbench{rows: fanOutRows()}
	e, _ := workbench(t, store)
	code, body := call(e, http.MethodGet, "/admin/messages", viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	var list struct {
		Items []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Items, 3)
	require.Equal(t, "ledger", list.Items[0]["destination"])
	require.Equal(t, true, list.Items[0]["routed"])
	require.Nil(t, list.Items[0]["origin"])
	require.Equal(t, "billing", list.Items[1]["destination"])
	require.Equal(t, store.rows[0].ID, list.Items[1]["origin"])
	require.Equal(t, "ledger, billing", list.Items[2]["destination"], "a row not routed yet shows what the routes give")
	require.Equal(t, false, list.Items[2]["routed"])

	code, body = call(e, http.MethodGet, "/admin/messages/"+store.rows[1].ID, viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	var one struct {
		MessageID  string `json:"messageId"`
		Deliveries []struct {
			ID, Destination, State string
			Attempt                int
			LastError              *string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &one))
	require.Equal(t, store.rows[0].ID, one.MessageID, "a delivery carries its origin's message id")
	require.Len(t, one.Deliveries, 2)
	require.Equal(t, store.rows[0].ID, one.Deliveries[0].ID, "the application's row first")
	require.Equal(t, "sent", one.Deliveries[0].State)
	require.Equal(t, "billing", one.Deliveries[1].Destination)
	require.Equal(t, "dead", one.Deliveries[1].State)
	require.Equal(t, 1, one.Deliveries[1].Attempt)
	require.Equal(t, "HTTP 503", *one.Deliveries[1].LastError)
}

// The destination filter of the list selects the destination column, and
// of the rows not routed yet the topics whose route names it.
func TestWorkbenchListByDestination(t *testing.T) {
	t.Parallel()
	store := &fakeWorkbench{rows: fanOutRows(), topics: []string{"payment.paid", "billing.paid", "orders.new"}}
	e, _ := workbench(t, store)
	code, body := call(e, http.MethodGet, "/admin/messages?state=dead&destination=billing", viewerOK, "")
	require.Equal(t, http.StatusOK, code, body)
	f := store.filters[0]
	require.Equal(t, "billing", f.Destination)
	require.Equal(t, []string{"payment.paid", "billing.paid"}, f.UnroutedTopics)
	require.Nil(t, f.Topics)
	require.Equal(t, 2, strings.Count(body, `"id":`), "billing's delivery and the row not routed yet")
	require.NotContains(t, body, `"id":"`+store.rows[0].ID)

	code, _ = call(e, http.MethodGet, "/admin/messages?destination=ledger&topic=orders.*", viewerOK, "")
	require.Equal(t, http.StatusOK, code)
	f = store.filters[1]
	require.Equal(t, []string{"orders.new"}, f.Topics)
	require.Empty(t, f.UnroutedTopics, "orders.new does not route to ledger")
}

// A resend or a discard with a destination acts on the delivery of the
// message to that destination, whichever of its rows the id names; a row
// not routed yet whose route fans out moves for that destination alone.
func TestWorkbenchResendAndDiscardOneDestination(t *testing.T) {
	t.Parallel()
	store := &fakeWorkbench{rows: fanOutRows()}
	e, logs := workbench(t, store)
	origin, billing, old := store.rows[0].ID, store.rows[1].ID, store.rows[2].ID
	code, body := call(e, http.MethodPost, "/admin/messages/"+origin+"/resend?destination=billing", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"id":"`+billing+`","state":"pending","destination":"billing"}`, body)
	require.Equal(t, []string{billing}, store.resent)
	require.Contains(t, logs.String(), `"destination":"billing"`)

	code, body = call(e, http.MethodPost, "/admin/messages/"+billing+"/discard?destination=billing", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []string{billing}, store.discarded)

	code, body = call(e, http.MethodPost, "/admin/messages/"+origin+"/resend?destination=archive", "Bearer s3cret", "")
	require.Equal(t, http.StatusNotFound, code)
	require.Contains(t, body, "has no delivery to archive")
	code, _ = call(e, http.MethodPost, "/admin/messages/"+rowID+"/resend?destination=billing", "Bearer s3cret", "")
	require.Equal(t, http.StatusNotFound, code)
	code, body = call(e, http.MethodPost, "/admin/messages/"+origin+"/resend?table=inbox&destination=billing", "Bearer s3cret", "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, `"destination: `)

	code, body = call(e, http.MethodPost, "/admin/messages/"+old+"/resend?destination=billing", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code, body)
	require.Len(t, store.moves, 1)
	require.Equal(t, queuebox.MessageFilter{Table: queuebox.TableOutbox, IDs: []string{old}, Destination: "billing",
		UnroutedTopics: []string{"payment.paid"}, WithDiscarded: true}, store.moves[0])
	require.Equal(t, []string{billing}, store.resent, "no resend that would fan the row out again")
	code, _ = call(e, http.MethodPost, "/admin/messages/"+old+"/resend?destination=billing", "Bearer s3cret", `{"payload":{}}`)
	require.Equal(t, http.StatusConflict, code, "such a row takes no edit")
}
