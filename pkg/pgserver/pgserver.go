// Package pgserver runs a private PostgreSQL server from the machine's own
// binaries: in a folder of its own, on a free loopback port, with no Unix
// socket, so it never meets another server of the machine. queuebox dev
// runs its demo on one, and the bench's soak measures on one whose
// settings (autovacuum above all) are PostgreSQL's defaults rather than
// whatever the machine's shared server was given.
package pgserver

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

// ReadyWithin bounds how long Start waits for the server to accept
// connections.
const ReadyWithin = 30 * time.Second

// Server is one private PostgreSQL server. Fill Bin, Dir and Cred (Bin
// and Cred from FindBin and Unprivileged), add any Settings, then call
// Prepare and Start; Stop ends it. Not safe for concurrent use.
type Server struct {
	Bin  string              // the folder of initdb and postgres
	Dir  string              // the data folder
	Cred *syscall.Credential // the unprivileged user when run as root; nil otherwise
	// Settings are name=value pairs given to the server with -c, on top
	// of the fixed ones (its port, listen_addresses=127.0.0.1, no Unix
	// socket); a later pair wins over an earlier one.
	Settings []string

	port int
	cmd  *exec.Cmd
	done chan error
}

// FindBin finds the folder of initdb and postgres: the one named, or the
// newest /usr/lib/postgresql/<version>/bin, or initdb on PATH. Its error
// says how to install them; flag names the command-line flag that names
// the folder, for that message.
func FindBin(named, flag string) (string, error) {
	if named != "" {
		return named, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server binaries (initdb, postgres) found under /usr/lib/postgresql/*/bin or on PATH; " +
		"install them (Debian: apt-get install postgresql, or make services) or name the folder with " + flag)
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Unprivileged returns the credential PostgreSQL runs under: nil for a
// normal user, the user nobody when run as root (PostgreSQL refuses to run
// as root), or an error that names the fix.
func Unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, errors.New("PostgreSQL refuses to run as root and this machine has no user nobody to run it as; " +
			"run as a normal user, or create one (useradd --system nobody)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// Chown gives dir to cred's user; a nil cred leaves it alone.
func Chown(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return os.Chown(dir, int(cred.Uid), int(cred.Gid))
}

// command runs a PostgreSQL binary as the server's user, in its own
// process group, so a terminal's Ctrl-C reaches the caller only and the
// server stops after what uses it. The server also gets SIGTERM if the
// caller dies without stopping it.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.Bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.Cred, Pdeathsig: syscall.SIGTERM}
	cmd.Env = []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH")}
	return cmd
}

// Prepare creates the data folder with initdb when it holds no cluster
// yet, owned by the server's user; initdb's output goes to log.
func (s *Server) Prepare(log *os.File) error {
	if _, err := os.Stat(filepath.Join(s.Dir, "PG_VERSION")); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	if err := Chown(s.Dir, s.Cred); err != nil {
		return err
	}
	cmd := s.command("initdb", "-D", s.Dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb %s: %w (see %s)", s.Dir, err, log.Name())
	}
	return nil
}

// Start runs the server on a free loopback port, its output to log, and
// waits until it accepts connections (at most ReadyWithin, or until ctx
// ends).
func (s *Server) Start(ctx context.Context, log *os.File) error {
	port, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	s.port = port
	args := []string{"-D", s.Dir, "-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="}
	for _, kv := range s.Settings {
		args = append(args, "-c", kv)
	}
	s.cmd = s.command("postgres", args...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait() }()
	return s.waitReady(ctx, log.Name())
}

func (s *Server) waitReady(ctx context.Context, logName string) error {
	deadline := time.Now().Add(ReadyWithin)
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case err := <-s.done:
			return fmt.Errorf("postgres exited: %v (see %s)", err, logName)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within %s (see %s)", ReadyWithin, logName)
		}
	}
}

// Port is the server's port, once started.
func (s *Server) Port() int { return s.port }

// URL is the connection URL of the database db of the server.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// Stop asks the server for a fast shutdown and waits for it; after 30 s
// it kills it. A server never started or already stopped is left alone,
// so Stop may be called again (a deferred Stop after an explicit one).
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// freeLoopbackPort returns a TCP port of 127.0.0.1 that was free a
// moment ago.
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
