package sqlserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// The undelivered view binds its filter by name, reads each row with its
// latest attempt in UTC, and reads the counts of the whole selection.
func TestUndeliveredBindsAndScans(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 11, 0, 0, 0, time.FixedZone("X", 3600))
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		switch {
		case strings.Contains(c.SQL, "TOP (@limit)"):
			return sqlfake.Result{Rows: [][]any{{"a1", "dead", "order.created", nil, int64(3), int64(3), "HTTP 400",
				created, created, created, int64(7), nil, "api", nil, "dead", "http_4xx", "400", at}}}
		case strings.Contains(c.SQL, "SUM(CASE"):
			return sqlfake.Result{Rows: [][]any{{"api", "http_4xx", int64(1), int64(0)}}}
		}
		return sqlfake.Result{}
	})
	w, err := NewWorkbench(db, layout())
	require.NoError(t, err)
	since := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("X", 3600))
	page, err := w.Undelivered(t.Context(), queuebox.UndeliveredFilter{Since: since, Destination: "api"}, 1,
		queuebox.Cursor{Sequence: 9, ID: "b2"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	u := page.Items[0]
	require.Equal(t, "a1", u.Message.ID)
	require.Equal(t, queuebox.ClassHTTP4xx, u.Class)
	require.Equal(t, at.UTC(), *u.LastAttempt)
	require.Equal(t, &queuebox.Cursor{Sequence: 7, ID: "a1"}, page.Next, "a full page")
	require.Equal(t, []queuebox.UndeliveredCount{{Destination: "api", Class: queuebox.ClassHTTP4xx, Dead: 1}}, page.Counts)
	list := fake.Calls()[0]
	require.Contains(t, list.SQL, "OUTER APPLY")
	require.Equal(t, []any{since.UTC(), "api", int64(1), int64(9), "b2"}, list.Args)
}
