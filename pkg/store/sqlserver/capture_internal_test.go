package sqlserver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
	capsql "github.com/alternayte/queuebox/pkg/capture/sqlserver"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// captureMarkers name each capture statement by a phrase of its SQL that
// no other statement holds.
var captureMarkers = []string{"sys.sp_getapplock", "sys.sp_releaseapplock", "is_cdc_enabled", "is_tracked_by_cdc",
	"dm_exec_sessions", "CREATE TABLE queuebox_wake", "INSERT INTO queuebox_capture_state", "SET updated_at",
	"FROM queuebox_capture_state", "fn_cdc_get_min_lsn(@p1)", "fn_cdc_get_max_lsn()", "cdc.fn_cdc_get_all_changes",
	"UPDATE queuebox_wake"}

// cdcScript answers as a SQL Server with change data capture ready, no
// registration yet, and lockStatus from sp_getapplock.
func cdcScript(lockStatus int64) sqlfake.Script {
	return cdcScriptMax(lockStatus, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 5})
}

// cdcScriptMax is cdcScript with max as the highest LSN (nil: NULL).
func cdcScriptMax(lockStatus int64, maxLSN []byte) sqlfake.Script {
	lsn := func(b byte) []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, b} }
	return func(c sqlfake.Call) sqlfake.Result {
		one := func(v any) sqlfake.Result { return sqlfake.Result{Columns: []string{"v"}, Rows: [][]any{{v}}} }
		switch {
		case strings.Contains(c.SQL, "sys.sp_getapplock"):
			return one(lockStatus)
		case strings.Contains(c.SQL, "is_cdc_enabled"), strings.Contains(c.SQL, "is_tracked_by_cdc"), strings.Contains(c.SQL, "dm_exec_sessions"):
			return one(int64(1))
		case strings.Contains(c.SQL, "fn_cdc_get_min_lsn"):
			return one(lsn(2))
		case strings.Contains(c.SQL, "fn_cdc_get_max_lsn"):
			return one(maxLSN)
		case strings.Contains(c.SQL, "SELECT CONVERT(NVARCHAR(36), instance_id)"):
			return sqlfake.Result{Columns: []string{"instance_id", "fingerprint"}}
		}
		return sqlfake.Result{Affected: 1}
	}
}

// runCapture runs sqlserver-cdc on a fake SQL Server until cond holds for
// its trace, then stops it and returns the trace and the last status.
func runCapture(t *testing.T, script sqlfake.Script, cond func(steps []string, status error) bool) ([]string, error) {
	t.Helper()
	db, fake := fakeDB(t, script)
	stores := &Stores{DB: db}
	locker, err := capsql.NewSQLLocker(stores.CapturePool())
	require.NoError(t, err)
	r, err := capsql.NewRunner(capsql.Options{DB: stores.CaptureDB(), Locker: locker, Poll: time.Millisecond,
		Settings: capture.Settings{Identity: "queuebox", Table: "outbox", StateDirectory: t.TempDir()}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	require.Eventually(t, func() bool { return cond(fake.Steps(captureMarkers...), r.Check(ctx)) }, 30*time.Second, 5*time.Millisecond)
	status := r.Check(ctx)
	cancel()
	require.NoError(t, <-done)
	return fake.Steps(captureMarkers...), status
}

// TestCaptureStatementSequenceOnAFirstStart: the wake-up of the attempt,
// the lock, the checks, the registration, the present LSN and a wake-up
// for the rows already there, then reads; the lock is
// released when capture stops.
func TestCaptureStatementSequenceOnAFirstStart(t *testing.T) {
	t.Parallel()
	steps, status := runCapture(t, cdcScript(0), func(steps []string, status error) bool {
		return status == nil && len(steps) > 15
	})
	require.NoError(t, status)
	require.Equal(t, []string{"UPDATE queuebox_wake", "sys.sp_getapplock", "is_cdc_enabled", "is_tracked_by_cdc", "dm_exec_sessions",
		"CREATE TABLE queuebox_wake", "FROM queuebox_capture_state", "INSERT INTO queuebox_capture_state", "SET updated_at",
		"fn_cdc_get_min_lsn(@p1)", "fn_cdc_get_max_lsn()", "UPDATE queuebox_wake",
		"fn_cdc_get_min_lsn(@p1)", "fn_cdc_get_max_lsn()"}, steps[:14])
	require.Equal(t, "sys.sp_releaseapplock", steps[len(steps)-1])
	require.NotContains(t, steps, "cdc.fn_cdc_get_all_changes", "nothing after the present LSN")
}

// TestCaptureLockHeldElsewhere: sp_getapplock answers -1 (timeout 0), so
// capture reports identity-owned and runs nothing else after the
// wake-up of its attempt.
func TestCaptureLockHeldElsewhere(t *testing.T) {
	t.Parallel()
	steps, status := runCapture(t, cdcScript(-1), func(_ []string, status error) bool {
		return status != nil && strings.Contains(status.Error(), "identity-owned")
	})
	require.ErrorContains(t, status, "identity-owned")
	require.Equal(t, []string{"UPDATE queuebox_wake", "sys.sp_getapplock"}, steps)
	require.False(t, slices.Contains(steps, "sys.sp_releaseapplock"), "no lock, nothing to release")
}

// TestCaptureStartsOnADatabaseWithNoLSNYet: fn_cdc_get_max_lsn answers
// NULL before the capture job logged anything; capture starts from the
// zero LSN and reads nothing until the highest LSN moves.
func TestCaptureStartsOnADatabaseWithNoLSNYet(t *testing.T) {
	t.Parallel()
	steps, status := runCapture(t, cdcScriptMax(0, nil), func(steps []string, status error) bool {
		return status == nil && len(steps) > 15
	})
	require.NoError(t, status)
	require.NotContains(t, steps, "cdc.fn_cdc_get_all_changes")
}
