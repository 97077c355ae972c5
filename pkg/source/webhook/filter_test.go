package webhook_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
)

// Over HTTP: header names in any letter case, values in their own case,
// the documented answer, the counter per source and no row.
func TestFilteredRequest(t *testing.T) {
	t.Parallel()
	src := source("orders", "/orders")
	src.Receive.Filter = &ingest.FilterSpec{
		Require: []ingest.FilterRule{{Header: "x-env", Equals: str("prod")}},
		Exclude: []ingest.FilterRule{{Header: "X-TEST", Exists: yes()}},
	}
	ev := newEnv(t, nil, nil, src)
	require.Equal(t, http.StatusAccepted, ev.post("/inbox/orders", `{"id":"1"}`, "X-Env", "prod").Code)

	for _, header := range [][]string{
		{"X-Env", "Prod"},
		{"X-Env", "prod", "x-test", "yes"},
		{},
		{"X-Env", "dev", "X-Env", "prod", "X-Env", "dev"}, // the last value decides
	} {
		rec := ev.post("/inbox/orders", `{"id":"2"}`, header...)
		requireAnswer(t, rec, 202, `{"status":"filtered"}`)
		require.Empty(t, rec.Header().Get("X-Correlation-Id"), "the filter answers before step 4")
	}
	require.Len(t, ev.mem.Rows(), 1)
	require.Equal(t, 4.0, ev.counter(t, "queuebox_inbox_filtered_total", "source", "orders"))
	require.Equal(t, 1.0, ev.counter(t, "queuebox_inbox_messages_total", "status", "new"))
}
