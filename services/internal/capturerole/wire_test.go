package capturerole

import (
	"context"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/health"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	"github.com/alternayte/queuebox/pkg/store/sqlserver"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

func captureApp(t *testing.T, stores queuebox.Stores) *run.App {
	t.Helper()
	cfg := config.Default()
	cfg.Database.URL = "jdbc:postgresql://127.0.0.1:5432/postgres"
	cfg.Outbox.Capture.Mode, cfg.Outbox.Capture.Enabled = config.CapturePostgresLogical, true
	cfg.Outbox.Capture.StateDirectory = t.TempDir()
	return &run.App{Name: "queuebox-capture", Config: &cfg, Log: slog.New(slog.DiscardHandler),
		Registry: prometheus.NewRegistry(), Health: health.New(), Stores: stores}
}

func TestWireStartsTheConnectorOnAStoreSetThatOffersCapture(t *testing.T) {
	t.Parallel()
	app := captureApp(t, &postgres.Stores{DB: pgtest.NewSchema(t).Open(t, 2)})
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	require.Len(t, components, 1)
	require.Equal(t, "outbox-capture", components[0].Name())
	require.Equal(t, []string{"outbox-capture"}, app.Health.Names())
	// Run closes the connector's pool; a cancelled one returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, components[0].Run(ctx))
}

func TestWireStartsSQLServerCDCOnTheSQLServerStoreSet(t *testing.T) {
	t.Parallel()
	fake := sqlfake.Open(func(sqlfake.Call) sqlfake.Result { return sqlfake.Result{} })
	t.Cleanup(func() { _ = fake.SQL.Close() })
	db, err := sqlserver.OpenDB(context.Background(), fake.SQL, sqlserver.Options{})
	require.NoError(t, err)
	app := captureApp(t, &sqlserver.Stores{DB: db})
	app.Config.Database.Type = config.DatabaseSQLServer
	app.Config.Database.URL = "jdbc:sqlserver://db.internal:1433;databaseName=queuebox"
	app.Config.Outbox.Capture.Mode = config.CaptureSQLServerCDC
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	require.Len(t, components, 1)
	require.Equal(t, "outbox-capture", components[0].Name())
	require.Equal(t, []string{"outbox-capture"}, app.Health.Names())
	report, ready := app.Health.Ready(context.Background())
	require.True(t, ready, "the capture component is advisory")
	require.Equal(t, "capture is starting", report.Components["outbox-capture"].Error)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, components[0].Run(ctx))
	require.Empty(t, fake.Calls(), "a cancelled connector runs no statement")
}

// noCapture is a store set that cannot run the connector, as a SQL
// Server set would be: calling any of its stores panics.
type noCapture struct{ queuebox.Stores }

func TestWireReportsAStoreSetWithoutCapture(t *testing.T) {
	t.Parallel()
	app := captureApp(t, noCapture{})
	app.Config.Outbox.Capture.Mode = config.CaptureSQLServerCDC
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	require.Empty(t, components)
	report, ready := app.Health.Ready(context.Background())
	require.True(t, ready, "the capture component is advisory")
	require.Equal(t, errNoCaptureStore.Error(), report.Components["outbox-capture"].Error)
}

func TestWireDoesNothingWhenCaptureIsDisabled(t *testing.T) {
	t.Parallel()
	app := captureApp(t, noCapture{})
	app.Config.Outbox.Capture.Enabled = false
	components, err := wire(context.Background(), app)
	require.NoError(t, err)
	require.Empty(t, components)
	require.Empty(t, app.Health.Names())
}
