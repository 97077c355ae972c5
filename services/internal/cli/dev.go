package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/pgserver"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/transform"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

const devAbout = `queuebox dev starts QueueBox for a first try, with nothing but this binary
and the machine's PostgreSQL server binaries (no Docker): a private
PostgreSQL cluster in a temporary folder (wal_level=logical, a free port on
127.0.0.1; as the user nobody when run as root), the migrations, every role
with capture, and a demo receiver that prints each delivery. It listens on
127.0.0.1 only. Ctrl-C stops everything and removes the folder, unless
--data names a folder to keep between runs.`

// devFlags are the settings of queuebox dev.
type devFlags struct {
	data         string
	config       string
	pgBin        string
	httpPort     int
	receiverPort int
	// adminToken is the bearer token of admin.auth, new for every run.
	adminToken string
}

// devCmd runs the development stack until SIGINT or SIGTERM.
func devCmd(roles []wiring.Role, args []string, stdout, stderr io.Writer) int {
	b := run.Binary{Name: name + " dev", About: devAbout}
	flags := run.NewFlagSet(b.Name, stderr)
	var f devFlags
	flags.StringVar(&f.data, "data", "", "keep the PostgreSQL data and capture state in this folder between runs (default: a temporary folder, removed on exit)")
	flags.StringVar(&f.config, "config", "", "merge this configuration file (such as examples/queuebox.yml) over the dev defaults in place of the demo routing; "+
		"the database, the data port and capture stay dev's, and "+composeReceiver+" means the demo receiver")
	flags.StringVar(&f.pgBin, "pg-bin", "", "the folder of initdb and postgres (default: the newest /usr/lib/postgresql/*/bin, else PATH)")
	flags.IntVar(&f.httpPort, "http-port", 8080, "the data port of QueueBox on 127.0.0.1")
	flags.IntVar(&f.receiverPort, "receiver-port", 9999, "the port of the demo receiver on 127.0.0.1")
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	f.adminToken = newDevToken()
	if err := dev(f, roles, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return exitCode(err)
	}
	return 0
}

// devSettings make the demo's server quick rather than durable (its data
// lives in a temporary folder) and give capture its logical WAL.
var devSettings = []string{"wal_level=logical", "max_wal_senders=4", "max_replication_slots=4",
	"fsync=off", "synchronous_commit=off", "max_connections=50"}

// dev sets up the folder, the cluster and the receiver, runs every role
// in this process, and tears all of it down again, whatever failed. The
// ports come first: a port that is taken stops dev before initdb.
func dev(f devFlags, roles []wiring.Role, stdout, stderr io.Writer) error {
	// Ctrl-C during the setup must still run the cleanup below.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ports, err := planPorts(f)
	if err == nil {
		err = ports.check()
	}
	if err != nil {
		return err
	}
	// The receiver binds its port now, so nothing takes it meanwhile.
	rc, err := startReceiver(net.JoinHostPort("127.0.0.1", strconv.Itoa(f.receiverPort)), stdout)
	if err != nil {
		return fmt.Errorf("%w (--receiver-port)", err)
	}
	defer rc.stop()
	cred, bin, err := devServerBinaries(f.pgBin)
	if err != nil {
		return err
	}
	root, keep, err := devFolder(f.data, cred)
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(root)
	}
	started := time.Now()
	c, err := devCluster(ctx, root, bin, cred)
	if c != nil {
		defer c.Stop()
	}
	if err != nil {
		return err
	}
	if err := devEnvironment(root, c.Port(), f); err != nil {
		return err
	}
	if err := devDatabase(ctx, c); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil
	}
	fmt.Fprintf(stdout, "PostgreSQL and the schema ready in %s; starting every role\n", time.Since(started).Round(10*time.Millisecond))
	return devServe(ctx, roles, ports, devTry(c.Port(), f, ports, root, keep), stdout, stderr)
}

// devServerBinaries finds initdb and postgres (in named, else the newest
// installed) and the user the server runs as (nobody when dev runs as
// root).
func devServerBinaries(named string) (*syscall.Credential, string, error) {
	cred, err := pgserver.Unprivileged()
	if err != nil {
		return nil, "", err
	}
	bin, err := pgserver.FindBin(named, "--pg-bin")
	return cred, bin, err
}

// devCluster creates the cluster in root when it holds none yet and
// starts it, its log in root/postgres.log. The caller stops a non-nil
// server, whatever the error (Stop leaves one never started alone).
func devCluster(ctx context.Context, root, bin string, cred *syscall.Credential) (*pgserver.Server, error) {
	logFile, err := os.Create(filepath.Join(root, "postgres.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	c := &pgserver.Server{Bin: bin, Dir: filepath.Join(root, "pgdata"), Cred: cred, Settings: devSettings}
	if err := c.Prepare(logFile); err != nil {
		return c, err
	}
	if err := c.Start(ctx, logFile); err != nil {
		return c, err
	}
	return c, nil
}

// devServe runs every role on 127.0.0.1 until SIGINT or SIGTERM, and
// prints the banner (text) once every listener is up and the data port
// answers ready: never for a port that another process holds.
func devServe(ctx context.Context, roles []wiring.Role, ports devPorts, text string, stdout, stderr io.Writer) error {
	listening := make(chan struct{})
	b := wiring.Binary(name, about, roles...)
	b.Host = "127.0.0.1"
	b.OnListen = func() { close(listening) }
	announceCtx, stopAnnounce := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { announce(announceCtx, listening, ports.operational(), stdout, text) })
	code := run.Start(b, stderr)
	stopAnnounce()
	wg.Wait()
	if code != 0 {
		return errors.New("QueueBox stopped with an error (see above)")
	}
	return nil
}

// devFolder returns the folder of the data and the capture state: the
// one named (kept), or a new temporary one (removed on exit). Run as
// root, the folder belongs to the user PostgreSQL runs as.
func devFolder(named string, cred *syscall.Credential) (string, bool, error) {
	if named != "" {
		abs, err := filepath.Abs(named)
		if err != nil {
			return "", false, err
		}
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return "", false, err
		}
		return abs, true, nil
	}
	dir, err := os.MkdirTemp("", "queuebox-dev-")
	if err != nil {
		return "", false, err
	}
	if err := pgserver.Chown(dir, cred); err != nil {
		os.RemoveAll(dir)
		return "", false, err
	}
	return dir, false, nil
}

// devEnvironment writes the configuration into the folder and points the
// process at it; variables the user set win, as everywhere.
func devEnvironment(root string, pgPort int, f devFlags) error {
	state := filepath.Join(root, "capture")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	text, err := devConfig(f, pgPort, state)
	if err != nil {
		return err
	}
	file := filepath.Join(root, "queuebox.yml")
	if err := os.WriteFile(file, text, 0o600); err != nil {
		return err
	}
	if os.Getenv("QUEUEBOX_LOG_FORMAT") == "" {
		os.Setenv("QUEUEBOX_LOG_FORMAT", "text")
	}
	return os.Setenv("QUEUEBOX_CONFIG_FILE", file)
}

// devDatabase creates the queuebox database, migrates it and creates the
// publication that capture reads (QueueBox itself never creates one).
func devDatabase(ctx context.Context, c *pgserver.Server) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	var exists bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'queuebox')`).Scan(&exists)
	if err == nil && !exists {
		_, err = conn.Exec(ctx, `CREATE DATABASE queuebox`)
	}
	_ = conn.Close(ctx)
	if err != nil {
		return fmt.Errorf("create the database queuebox: %w", err)
	}
	cfg, err := config.Load(config.Options{CompileExpression: transform.Check})
	if err != nil {
		return err
	}
	if err := migrate(ctx, cfg.Database, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	conn, err = pgx.Connect(ctx, c.URL("queuebox"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '`+devPublication+`') THEN
			CREATE PUBLICATION `+devPublication+` FOR TABLE outbox;
		END IF; END $$`)
	return err
}

// announce prints text once listening is closed (every listener of the
// process is up) and /health/ready on port, now this process's own,
// answers 200; it returns without printing when ctx ends first.
func announce(ctx context.Context, listening <-chan struct{}, port int, out io.Writer, text string) {
	select {
	case <-ctx.Done():
		return
	case <-listening:
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/health/ready", port)
	for ctx.Err() == nil {
		if code, err := probe(url, time.Second); err == nil && code == 200 {
			fmt.Fprint(out, text)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}
