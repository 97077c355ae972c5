package pgserver_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/pgserver"
)

// TestServerRunsWithItsSettings starts a private server from the
// machine's binaries (make services installs them) and reads back one
// setting it was given and one it was not.
func TestServerRunsWithItsSettings(t *testing.T) {
	t.Parallel()
	bin, err := pgserver.FindBin("", "--pg-bin")
	require.NoError(t, err)
	cred, err := pgserver.Unprivileged()
	require.NoError(t, err)
	// Not t.TempDir: its parent folder is closed to the user nobody that
	// the server runs as under root.
	root, err := os.MkdirTemp("", "queuebox-pgserver-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	require.NoError(t, pgserver.Chown(root, cred))
	log, err := os.Create(filepath.Join(root, "postgres.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })

	s := &pgserver.Server{Bin: bin, Dir: filepath.Join(root, "data"), Cred: cred,
		Settings: []string{"max_connections=20", "max_connections=30"}}
	t.Cleanup(s.Stop)
	require.NoError(t, s.Prepare(log))
	require.NoError(t, s.Start(context.Background(), log))
	require.NotZero(t, s.Port())

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	require.NoError(t, err)
	defer conn.Close(ctx)
	var conns, autovacuum, sockets string
	require.NoError(t, conn.QueryRow(ctx, `SELECT current_setting('max_connections'), current_setting('autovacuum'),
		current_setting('unix_socket_directories')`).Scan(&conns, &autovacuum, &sockets))
	require.Equal(t, "30", conns, "the later of two pairs wins")
	require.Equal(t, "on", autovacuum, "what is not set keeps PostgreSQL's default")
	require.Empty(t, sockets, "a private server opens no Unix socket")

	s.Stop()
	_, err = pgx.Connect(ctx, s.URL("postgres"))
	require.Error(t, err, "stopped")
	s.Stop() // and again, as the cleanup does: it must return
}
