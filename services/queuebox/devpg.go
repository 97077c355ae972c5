package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is a private PostgreSQL server that queuebox dev starts from the
// machine's own binaries, on 127.0.0.1 only, with wal_level=logical.
type cluster struct {
	bin  string // the folder of initdb and postgres
	dir  string // the data folder
	port int
	cred *syscall.Credential // the unprivileged user when run as root; nil otherwise
	cmd  *exec.Cmd
	done chan error
}

// postgresBin finds the folder of initdb and postgres: the one named, or
// the newest /usr/lib/postgresql/<version>/bin, or initdb on PATH.
func postgresBin(named string) (string, error) {
	if named != "" {
		return named, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server binaries (initdb, postgres) found under /usr/lib/postgresql/*/bin or on PATH; " +
		"install them (Debian: apt-get install postgresql, or make services) or name the folder with --pg-bin")
}

func pgVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// unprivileged returns the credential PostgreSQL runs under: nil for a
// normal user, the user nobody when run as root (PostgreSQL refuses to run
// as root), or an error that names the fix.
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, errors.New("PostgreSQL refuses to run as root and this machine has no user nobody to run it as; " +
			"run queuebox dev as a normal user, or create one (useradd --system nobody)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// command runs a PostgreSQL binary as the cluster's user, in its own
// process group, so the terminal's Ctrl-C reaches queuebox dev only and
// the server stops after the roles that use it. The server also gets
// SIGTERM if queuebox dev dies without stopping it.
func (c *cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred, Pdeathsig: syscall.SIGTERM}
	cmd.Env = []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH")}
	return cmd
}

// prepare creates the data folder when it holds no cluster yet, owned by
// the cluster's user.
func (c *cluster) prepare(log *os.File) error {
	if _, err := os.Stat(filepath.Join(c.dir, "PG_VERSION")); err == nil {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	if c.cred != nil {
		if err := os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return err
		}
	}
	cmd := c.command("initdb", "-D", c.dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb %s: %w (see %s)", c.dir, err, log.Name())
	}
	return nil
}

// start runs the server on a free loopback port and waits until it
// accepts connections.
func (c *cluster) start(ctx context.Context, log *os.File) error {
	port, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	c.port = port
	c.cmd = c.command("postgres", "-D", c.dir, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "wal_level=logical", "-c", "max_wal_senders=4", "-c", "max_replication_slots=4",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=50")
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	c.done = make(chan error, 1)
	go func() { c.done <- c.cmd.Wait() }()
	return c.waitReady(ctx, log.Name())
}

func (c *cluster) waitReady(ctx context.Context, logName string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.url("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case err := <-c.done:
			return fmt.Errorf("postgres exited: %v (see %s)", err, logName)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30 s (see %s)", logName)
		}
	}
}

// url is the connection URL of a database of the cluster.
func (c *cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// stop asks the server for a fast shutdown and waits for it; after 30 s
// it kills it.
func (c *cluster) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
