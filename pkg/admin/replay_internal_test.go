package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fakeReplayer records the filters it receives and answers Topics from a
// fixed list, so the filter logic is tested without a database.
type fakeReplayer struct {
	mu        sync.Mutex
	topics    []string
	topicsErr error
	moves     []queuebox.MessageFilter
}

func (f *fakeReplayer) Topics(context.Context, queuebox.MessageFilter) ([]string, error) {
	return f.topics, f.topicsErr
}

func (f *fakeReplayer) Count(context.Context, queuebox.MessageFilter, int) (int64, error) {
	return 0, nil
}

func (f *fakeReplayer) JobCreate(_ context.Context, filter queuebox.MessageFilter, n int64) (queuebox.ReplayJob, error) {
	return queuebox.ReplayJob{Filter: filter, Matched: n}, nil
}

func (f *fakeReplayer) Move(_ context.Context, filter queuebox.MessageFilter, _ int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moves = append(f.moves, filter)
	return 7, nil
}

// routesOf sends billing.* to billing; every other topic has no route.
func routesOf(topic string) []string {
	if strings.HasPrefix(topic, "billing.") {
		return []string{"billing"}
	}
	return nil
}

func postReplay(t *testing.T, store Replayer, body string) (int, string, string) {
	t.Helper()
	var logs bytes.Buffer
	h, err := NewReplay(Options{Enabled: true, Insecure: true, MaxPayloadBytes: 4096}, store, routesOf,
		slog.New(slog.NewJSONHandler(&logs, nil)))
	require.NoError(t, err)
	e := echo.New()
	e.POST("/admin/replay", h)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/replay", strings.NewReader(body)))
	return rec.Code, strings.TrimSpace(rec.Body.String()), logs.String()
}

// A list that is present but empty selects no row. It must never widen the
// other filters into "every sent and dead row of the topic".
func TestReplayEmptyListsMoveNothing(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"ids":[]}`,
		`{"ids":[],"topic":"billing.paid"}`,
		`{"topics":[],"topic":"billing.paid"}`,
		`{"topics":[],"createdAfter":"2026-09-01T00:00:00Z"}`,
	} {
		store := &fakeReplayer{topics: []string{"billing.paid"}}
		code, resp, _ := postReplay(t, store, body)
		require.Equal(t, http.StatusOK, code, body)
		require.JSONEq(t, `{"moved":0}`, resp, body)
		require.Empty(t, store.moves, "%s ran the update", body)
	}
}

// A topic that no route matches resolves to no destination; an empty
// destination name must not select those rows.
func TestReplayEmptyDestinationSelectsNoUnroutedTopic(t *testing.T) {
	t.Parallel()
	store := &fakeReplayer{topics: []string{"orphan.topic", "billing.paid"}}
	code, resp, _ := postReplay(t, store, `{"destination":""}`)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"moved":0}`, resp)
	require.Empty(t, store.moves)

	code, _, _ = postReplay(t, store, `{"destination":"billing"}`)
	require.Equal(t, http.StatusOK, code)
	require.Len(t, store.moves, 2, "the move, then the deliveries to add")
	require.True(t, store.moves[1].Backfill)
	require.Equal(t, store.moves[0].UnroutedTopics, store.moves[1].UnroutedTopics)
	require.Equal(t, "billing", store.moves[0].Destination, "the rows routed to billing")
	require.Equal(t, []string{"billing.paid"}, store.moves[0].UnroutedTopics, "and those not routed yet that go there")
	require.Nil(t, store.moves[0].Topics, "no topic narrows a destination")
}

func TestReplayCanonicalisesIDs(t *testing.T) {
	t.Parallel()
	store := &fakeReplayer{}
	code, _, _ := postReplay(t, store, `{"ids":["urn:uuid:3F2B1C1E-8D4A-4C1B-9A53-2D0F6F1E7A10","9b7e5d2c1a3f4e8bb6c40f1e2d3c4b5a"]}`)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, []string{"3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10", "9b7e5d2c-1a3f-4e8b-b6c4-0f1e2d3c4b5a"}, store.moves[0].IDs)
}

// A database failure while resolving a destination is the server's fault:
// 500, not a 400 that tells the operator to change the request.
func TestReplayStoreFailureIs500(t *testing.T) {
	t.Parallel()
	store := &fakeReplayer{topicsErr: errors.New("connection refused")}
	code, resp, logs := postReplay(t, store, `{"destination":"billing"}`)
	require.Equal(t, http.StatusInternalServerError, code)
	require.JSONEq(t, `{"error":"Replay failed"}`, resp)
	require.Contains(t, logs, "connection refused")
}

// The log line names every field of the filter by its value and the count,
// so a lost answer can be found again.
func TestReplayLogsTheFilterAndTheCount(t *testing.T) {
	t.Parallel()
	store := &fakeReplayer{topics: []string{"billing.paid"}}
	code, _, logs := postReplay(t, store, `{"ids":["3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"],"topic":"billing.paid",
		"topics":["billing.paid"],"destination":"billing","createdAfter":"2026-09-24T08:00:00Z","createdBefore":"2026-09-24T12:00:00+02:00"}`)
	require.Equal(t, http.StatusOK, code)
	var line struct {
		Msg    string
		Moved  int64
		Filter map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(logs)), &line), logs)
	require.Equal(t, "replay", line.Msg)
	require.Equal(t, int64(7), line.Moved)
	require.Equal(t, map[string]any{
		"ids":           []any{"3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"},
		"topic":         "billing.paid",
		"topics":        []any{"billing.paid"},
		"destination":   "billing",
		"createdAfter":  "2026-09-24T08:00:00Z",
		"createdBefore": "2026-09-24T12:00:00+02:00",
	}, line.Filter)
}

// The 400 answers name the field and the JSON type, not Go types.
func TestReplayInvalidRequestMessages(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"ids":"x"}`:               `{"error":"Invalid request: ids must be an array, got string"}`,
		`{"topic":5}`:               `{"error":"Invalid request: topic must be a string, got number"}`,
		`[]`:                        `{"error":"Invalid request: the body must be a JSON object"}`,
		`{`:                         `{"error":"Invalid request: the body is not valid JSON"}`,
		`{"createdAfter":"monday"}`: `{"error":"Invalid request: createdAfter: \"monday\" is not an ISO-8601 instant such as 2026-09-01T00:00:00Z"}`,
		`{"ids":["nope"]}`:          `{"error":"Invalid request: ids: \"nope\" is not a UUID"}`,
	}
	for body, want := range cases {
		store := &fakeReplayer{}
		code, resp, _ := postReplay(t, store, body)
		require.Equal(t, http.StatusBadRequest, code, body)
		require.JSONEq(t, want, resp, body)
		require.Empty(t, store.moves, body)
	}
}

// admin.insecure is for a local test only: the start says so loudly.
func TestMountWarnsWhenInsecure(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	Mount(echo.New(), Options{Enabled: true, Insecure: true}, Routes{}, log)
	require.Contains(t, logs.String(), `"level":"WARN"`)
	require.Contains(t, logs.String(), "admin.insecure")
}
