package sqlserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// TestDiagnosticsWithoutEquivalent: the two readings SQL Server has no
// counterpart for say so through ErrNotSupported, which the doctor shows
// as skipped, and touch no connection (the DB here is nil).
func TestDiagnosticsWithoutEquivalent(t *testing.T) {
	t.Parallel()
	d, err := NewDiagnostics(nil, schematest.DefaultLayout(schema.SQLServer))
	require.NoError(t, err)
	require.Equal(t, "sqlserver", d.Dialect())
	_, err = d.Tables(context.Background())
	require.ErrorIs(t, err, queuebox.ErrNotSupported)
	require.ErrorContains(t, err, "ghost cleanup")
	_, err = d.Capture(context.Background(), "slot")
	require.ErrorIs(t, err, queuebox.ErrNotSupported)
}

// TestBacklogKeepsTheDestinations: the pending and the dead outbox rows
// come per topic and destination (four columns); the backlog keeps each
// destination of a topic apart (the doctor counts a fan-out's deliveries
// under their own destinations) and sums the rows of one pair.
func TestBacklogKeepsTheDestinations(t *testing.T) {
	t.Parallel()
	db, _ := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.Contains(c.SQL, "The pending rows per topic and destination") {
			return sqlfake.Result{Rows: [][]any{{"order.paid", "billing", int64(2), float64(60)},
				{"order.paid", "ledger", int64(3), float64(5)}, {"order.paid", "billing", int64(1), float64(1)},
				{"x", "", int64(1), float64(1)}}}
		}
		if strings.Contains(c.SQL, "The dead outbox rows per topic") {
			return sqlfake.Result{Rows: [][]any{{"order.paid", "ledger", int64(4), float64(7)}}}
		}
		return sqlfake.Result{}
	})
	d, err := NewDiagnostics(db, layout())
	require.NoError(t, err)
	b, err := d.Backlog(context.Background())
	require.NoError(t, err)
	require.Equal(t, []queuebox.Group{
		{Name: "order.paid", Destination: "billing", Count: 3, OldestAge: time.Minute},
		{Name: "order.paid", Destination: "ledger", Count: 3, OldestAge: 5 * time.Second},
		{Name: "x", Count: 1, OldestAge: time.Second},
	}, b.PendingByTopic)
	require.Equal(t, []queuebox.Group{{Name: "order.paid", Destination: "ledger", Count: 4, OldestAge: 7 * time.Second}}, b.DeadByTopic)
}
