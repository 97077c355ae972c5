//go:build sqlserver

package sqlserver_test

// Capture sqlserver-cdc on a real SQL Server with its Agent running
// (integration/sqlserver starts one). Built only with the sqlserver tag;
// never run on the machines this was written on.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
	capsql "github.com/alternayte/queuebox/pkg/capture/sqlserver"
	"github.com/alternayte/queuebox/pkg/store/sqlserver"
	"github.com/alternayte/queuebox/pkg/store/storetest"
	"github.com/alternayte/queuebox/pkg/wake"
)

// The capture job of SQL Server scans the log every few seconds, so a
// change reaches the change table late: wait generously.
const cdcWait, cdcTick = 3 * time.Minute, 100 * time.Millisecond

// startCapture runs a connector on d until the test ends.
func startCapture(t *testing.T, d *msDatabase, dir string) *capsql.Runner {
	t.Helper()
	stores := d.Stores(t, nil).(*sqlserver.Stores)
	locker, err := capsql.NewSQLLocker(stores.CapturePool())
	require.NoError(t, err)
	r, err := capsql.NewRunner(capsql.Options{DB: stores.CaptureDB(), Locker: locker,
		Metrics: capture.NewMetrics(prometheus.NewRegistry()), Poll: 50 * time.Millisecond,
		Settings: capture.Settings{Identity: "queuebox", Table: "outbox", Host: "127.0.0.1", Database: "test", StateDirectory: dir}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return r
}

func faultOf(r *capsql.Runner) capture.FaultKind {
	var f *capture.Fault
	if errors.As(r.Check(context.Background()), &f) {
		return f.Kind
	}
	return ""
}

func generation(t *testing.T, d *msDatabase) int64 {
	t.Helper()
	var g int64
	err := d.db.SQL.QueryRow(`SELECT COALESCE(MAX(generation), 0) FROM queuebox_wake WHERE channel = @p1`, wake.Channel).Scan(&g)
	require.NoError(t, err)
	return g
}

func enableCDC(t *testing.T, d *msDatabase) {
	t.Helper()
	_, err := d.db.SQL.Exec(`EXEC sys.sp_cdc_enable_db`)
	require.NoError(t, err)
	// Runs before the database is dropped (cleanups run last first).
	t.Cleanup(func() { _, _ = d.db.SQL.Exec(`EXEC sys.sp_cdc_disable_db`) })
	_, err = d.db.SQL.Exec(`EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'outbox',
		@role_name = NULL, @supports_net_changes = 0`)
	require.NoError(t, err)
}

func TestCaptureSQLServerRefusesADatabaseWithoutCDC(t *testing.T) {
	t.Parallel()
	d := newDatabase(t, os.Getenv("QUEUEBOX_SQLSERVER_DSN"))
	r := startCapture(t, d, t.TempDir())
	require.Eventually(t, func() bool { return faultOf(r) == capsql.FaultDatabaseNotEnabled }, cdcWait, cdcTick)
	require.ErrorContains(t, r.Check(context.Background()), "sys.sp_cdc_enable_db")
}

func TestCaptureSQLServerWakesOnInsertsAndOwnsItsIdentity(t *testing.T) {
	t.Parallel()
	d := newDatabase(t, os.Getenv("QUEUEBOX_SQLSERVER_DSN"))
	enableCDC(t, d)
	dir := t.TempDir()
	r := startCapture(t, d, dir)
	require.Eventually(t, func() bool { return r.Check(context.Background()) == nil }, cdcWait, cdcTick, "capture reads")
	before := generation(t, d)
	require.Positive(t, before, "the start wakes delivery once")

	d.InsertOutbox(t, storetest.OutboxRow{Topic: "order.created"})
	require.Eventually(t, func() bool { return generation(t, d) > before }, cdcWait, cdcTick, "an insert bumps the wake row")
	stored, err := os.ReadFile(filepath.Join(dir, "offsets.dat"))
	require.NoError(t, err)
	_, err = capsql.ParseLSN(string(stored[:len(stored)-1]))
	require.NoError(t, err)

	second := startCapture(t, d, t.TempDir())
	require.Eventually(t, func() bool { return faultOf(second) == capture.FaultIdentityOwned }, cdcWait, cdcTick)
}

func TestCaptureSQLServerStoredLSNAheadIsStateCorrupt(t *testing.T) {
	t.Parallel()
	d := newDatabase(t, os.Getenv("QUEUEBOX_SQLSERVER_DSN"))
	enableCDC(t, d)
	dir := t.TempDir()
	// A first run registers the identity and records the present LSN.
	ctx, cancel := context.WithCancel(context.Background())
	stores := d.Stores(t, nil).(*sqlserver.Stores)
	locker, err := capsql.NewSQLLocker(stores.CapturePool())
	require.NoError(t, err)
	settings := capture.Settings{Identity: "queuebox", Table: "outbox", Host: "127.0.0.1", Database: "test", StateDirectory: dir}
	first, err := capsql.NewRunner(capsql.Options{DB: stores.CaptureDB(), Locker: locker, Settings: settings})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx) }()
	require.Eventually(t, func() bool { return first.Check(context.Background()) == nil }, cdcWait, cdcTick)
	cancel()
	require.NoError(t, <-done)

	require.NoError(t, capture.NewStateDir(dir).WriteOffset("0xFFFFFFFFFFFFFFFFFFFF"))
	r := startCapture(t, d, dir)
	require.Eventually(t, func() bool { return faultOf(r) == capture.FaultStateCorrupt }, cdcWait, cdcTick)
}
