package webhook_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

func TestConcurrentDuplicatesAgainstPostgres(t *testing.T) {
	t.Parallel()
	in, s := pgtest.Inbox(t)
	ev := newEnv(t, in, nil, source("s", "/s"))
	const n = 20
	codes := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			rec := ev.post("/inbox/s", `{"id":"same-key"}`)
			codes[i], bodies[i] = rec.Code, rec.Body.String()
		})
	}
	wg.Wait()
	count := map[int]int{}
	for i, c := range codes {
		count[c]++
		if c == http.StatusOK {
			require.Equal(t, "{\"status\":\"duplicate\"}\n", bodies[i])
		}
	}
	require.Equal(t, map[int]int{http.StatusAccepted: 1, http.StatusOK: n - 1}, count)
	var rows int
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&rows))
	require.Equal(t, 1, rows)
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "new"))
	require.Equal(t, float64(n-1), ev.counter(t, "queuebox_inbox_messages_total", "status", "duplicate"))
}

func TestStoredRowAgainstPostgres(t *testing.T) {
	t.Parallel()
	in, s := pgtest.Inbox(t)
	pull := source("orders", "/orders")
	pull.Receive.Consumption = ingest.ConsumptionPull
	ev := newEnv(t, in, nil, pull, source("plain", "/plain"))

	rec := ev.post("/inbox/orders", `{"id":42,"type":"order.created","customer":"c-7","total":1.50}`,
		"X-Correlation-Id", "corr-9", "Authorization", "Bearer x", "X-Tenant", "acme")
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	var (
		id, key, consumption, state, payload, headers string
		event, agg, corr                              *string
	)
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT id::text, idempotency_key, consumption, state,
		payload::text, headers::text, event_type, aggregate_id, correlation_id FROM inbox WHERE source = 'orders'`).
		Scan(&id, &key, &consumption, &state, &payload, &headers, &event, &agg, &corr))
	require.Equal(t, `{"messageId":"`+id+`"}`+"\n", rec.Body.String())
	require.Equal(t, "42", key)
	require.Equal(t, "pull", consumption)
	require.Equal(t, "pending", state)
	require.JSONEq(t, `{"id":42,"type":"order.created","customer":"c-7","total":1.50}`, payload)
	require.Equal(t, "order.created", *event)
	require.Equal(t, "c-7", *agg)
	require.Equal(t, "corr-9", *corr)
	require.Contains(t, headers, `"x-tenant": "acme"`)
	require.NotContains(t, headers, "authorization")

	rec = ev.post("/inbox/plain", `{"id":"p-1"}`)
	require.Equal(t, http.StatusAccepted, rec.Code)
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT consumption, event_type, aggregate_id, correlation_id
		FROM inbox WHERE source = 'plain'`).Scan(&consumption, &event, &agg, &corr))
	require.Equal(t, "push", consumption)
	require.Nil(t, event)
	require.Nil(t, agg)
	require.Equal(t, rec.Header().Get("X-Correlation-Id"), *corr)
}

// A body that is valid JSON but that the jsonb column can never hold (a
// number outside the numeric range, an unpaired surrogate escape) gets a
// 400 that names the cause, not a 500 that a sender would repeat for ever,
// and it is not counted as a storage failure.
func TestBodyTheDatabaseCannotStoreIsRefused(t *testing.T) {
	t.Parallel()
	in, s := pgtest.Inbox(t)
	ev := newEnv(t, in, nil, source("orders", "/orders"))
	for body, cause := range map[string]string{
		`{"id":"a","n":1e999999}`:      "overflows numeric",
		`{"id":"b","note":"x\ud800y"}`: "surrogate",
		`{"id":"c","n":0.5e-16383}`:    "overflows numeric",
	} {
		rec := ev.post("/inbox/orders", body)
		require.Equal(t, http.StatusBadRequest, rec.Code, body)
		require.Contains(t, rec.Body.String(), `"error":"The database cannot store this message: `, body)
		require.Contains(t, rec.Body.String(), cause, body)
	}
	var rows int
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&rows))
	require.Zero(t, rows)
	require.Equal(t, 3.0, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "extraction_failed"))
	require.Zero(t, ev.counter(t, "queuebox_inbox_rejections_total", "reason", "storage_failed"))
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/orders", `{"id":"d","n":1e5}`).Code)
}
