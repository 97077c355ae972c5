package capturerole

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
)

func TestCaptureSettings(t *testing.T) {
	t.Parallel()
	base := func() *config.Config {
		cfg := config.Default()
		cfg.Database.URL = "jdbc:postgresql://db.internal:5433/queuebox"
		cfg.Database.Username, cfg.Database.Password = "app", secret.New("app-pass")
		cfg.Outbox.Capture.Mode, cfg.Outbox.Capture.Enabled = config.CapturePostgresLogical, true
		cfg.Outbox.Capture.StateDirectory = "/var/lib/queuebox/capture"
		return &cfg
	}
	t.Run("from database.url", func(t *testing.T) {
		t.Parallel()
		s, err := captureSettings(base())
		require.NoError(t, err)
		require.Equal(t, "db.internal", s.Host)
		require.Equal(t, 5433, s.Port)
		require.Equal(t, "queuebox", s.Database)
		require.Empty(t, s.Schema, "the connector's New picks the default schema")
		require.Equal(t, "outbox", s.Table)
		require.Equal(t, "db.internal:5433/queuebox", s.DisplayURL)
		require.NotContains(t, s.DisplayURL, "app-pass")
		c, err := pgconn.ParseConfig(s.CaptureConn)
		require.NoError(t, err)
		require.Equal(t, "app", c.User)
		require.Equal(t, "app-pass", c.Password)
	})
	t.Run("each connection field replaces one value", func(t *testing.T) {
		t.Parallel()
		cfg := base()
		port := 6432
		pw := secret.New("cap-pass")
		cfg.Outbox.Capture.Connection = config.CaptureConnection{Hostname: "replica.internal", Port: &port,
			Database: "other", Username: "capture_user", Password: &pw}
		cfg.Outbox.Capture.Schema = "qb"
		s, err := captureSettings(cfg)
		require.NoError(t, err)
		require.Equal(t, []any{"replica.internal", 6432, "other", "qb"}, []any{s.Host, s.Port, s.Database, s.Schema})
		c, err := pgconn.ParseConfig(s.CaptureConn)
		require.NoError(t, err)
		require.Equal(t, []any{"replica.internal", uint16(6432), "other", "capture_user", "cap-pass"},
			[]any{c.Host, c.Port, c.Database, c.User, c.Password})
	})
	t.Run("several hosts need connection.hostname", func(t *testing.T) {
		t.Parallel()
		cfg := base()
		cfg.Database.URL = "jdbc:postgresql://a.internal:5432,b.internal:5432/queuebox"
		_, err := captureSettings(cfg)
		require.ErrorContains(t, err, "outbox.capture.connection.hostname (QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_HOSTNAME): required")
		cfg.Outbox.Capture.Connection.Hostname = "b.internal"
		s, err := captureSettings(cfg)
		require.NoError(t, err)
		require.Equal(t, "b.internal", s.Host)
	})
}
