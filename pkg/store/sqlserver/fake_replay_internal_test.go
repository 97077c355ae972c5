package sqlserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

func TestReplayFiltersBecomeJSONListsAndUTCBounds(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(sqlfake.Call) sqlfake.Result { return sqlfake.Result{Affected: 2} })
	rp, err := NewReplay(db, layout())
	require.NoError(t, err)
	after := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("X", -3600))
	n, err := rp.Move(t.Context(), queuebox.ReplayFilter{Topics: []string{}, CreatedAfter: &after}, 0)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	_, err = rp.Move(t.Context(), queuebox.ReplayFilter{IDs: []string{"a1"}}, 50)
	require.NoError(t, err)
	calls := fake.Calls()
	require.Equal(t, []any{nil, "[]", after.UTC(), nil, nil}, calls[0].Args,
		"nil ids filter nothing, an empty topic list selects nothing, no limit is NULL")
	require.Equal(t, []any{`["a1"]`, nil, nil, nil, int64(50)}, calls[1].Args)
}

func TestOutboxGaugesAndNextDue(t *testing.T) {
	t.Parallel()
	var due any
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		switch {
		case strings.Contains(c.SQL, "GROUP BY"):
			return sqlfake.Result{Rows: [][]any{{"a", "", int64(3), 1.5}, {"b", "ledger", int64(1), 4.0},
				{"b", "billing", int64(2), 2.0}}}
		case strings.Contains(c.SQL, "CEILING"):
			return sqlfake.Result{Rows: [][]any{{due}}}
		}
		return sqlfake.Result{}
	})
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	st, err := o.Pending(t.Context())
	require.NoError(t, err)
	require.Equal(t, queuebox.PendingStats{ByTopic: map[string]int64{"a": 3, "b": 3},
		ByDestination: map[string]int64{"ledger": 1, "billing": 2}, Unrouted: map[string]int64{"a": 3},
		OldestAge: 4 * time.Second}, st, "the rows per topic, per destination column, and those not routed yet")

	_, ok, err := o.NextDue(t.Context(), 1500*time.Millisecond)
	require.NoError(t, err)
	require.False(t, ok, "NULL: no row waits")
	require.Equal(t, []any{nil, int64(1500)}, fake.Calls()[1].Args)
	due = int64(250)
	d, ok, err := o.NextDue(t.Context(), 0)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 250*time.Millisecond, d)
}
