package sqlserver

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
	"github.com/alternayte/queuebox/pkg/wake"
)

// TestWakeSourceWakesOnEachNewGeneration scripts the wake row: missing
// table, then generation 1 for a while, then 2. The replica wakes once
// for its first successful read and once for the move to 2, and reads the
// row by its channel.
func TestWakeSourceWakesOnEachNewGeneration(t *testing.T) {
	t.Parallel()
	var reads atomic.Int32
	db, fake := fakeDB(t, func(sqlfake.Call) sqlfake.Result {
		switch n := reads.Add(1); {
		case n <= 2:
			return sqlfake.Result{Err: mssql.Error{Number: 208, Message: "Invalid object name 'queuebox_wake'."}}
		case n <= 6:
			return sqlfake.Result{Rows: [][]any{{int64(1)}}}
		default:
			return sqlfake.Result{Rows: [][]any{{int64(2)}}}
		}
	})
	var wakes atomic.Int32
	src, ok := (&Stores{DB: db, WakePoll: time.Millisecond}).WakeSource(func() { wakes.Add(1) }, nil)
	require.True(t, ok)
	require.Equal(t, "outbox-wake-listener", src.Name())

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx) }()
	require.Eventually(t, func() bool { return reads.Load() > 10 }, time.Minute, time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, int32(2), wakes.Load(), "one wake-up for the first read, one for the new generation")
	require.Equal(t, []any{wake.Channel}, fake.Calls()[0].Args)
}
