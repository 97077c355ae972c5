package sqlserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// A pause is recorded in one batch with its arguments in the order the
// statement names them (no detail is NULL), and the listed pauses come
// back in UTC.
func TestPauseRecordAndList(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 12, 2, 9, 0, 0, 0, time.FixedZone("X", 3600))
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.Contains(c.SQL, "SELECT destination, replica") {
			return sqlfake.Result{Rows: [][]any{{"orders", "r1", "circuit_open", "HTTP 500", until, created}}}
		}
		return sqlfake.Result{Affected: 1}
	})
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	require.NoError(t, o.PauseRecord(t.Context(), queuebox.PauseParams{Destination: "orders", Replica: "r1",
		Reason: queuebox.PauseRetryAfter, For: 2500 * time.Millisecond}))
	call := fake.Calls()[0]
	require.Contains(t, call.SQL, "MERGE [queuebox_destination_pauses] WITH (HOLDLOCK)")
	require.Equal(t, []any{"orders", "r1", "retry_after", nil, int64(2500), nil}, call.Args)

	w, err := NewWorkbench(db, layout())
	require.NoError(t, err)
	got, err := w.Pauses(t.Context())
	require.NoError(t, err)
	detail := "HTTP 500"
	require.Equal(t, []queuebox.DestinationPause{{Destination: "orders", Replica: "r1", Reason: "circuit_open",
		Detail: &detail, Until: until.UTC(), RecordedAt: created}}, got)
	require.Contains(t, fake.Calls()[1].SQL, "WHERE until_at > SYSUTCDATETIME()")
}
