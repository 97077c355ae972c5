package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// PGBin is the directory of the PostgreSQL server programs that private
// clusters run: QUEUEBOX_PG_BIN, or the Debian path of PostgreSQL 15.
func PGBin() string {
	return envOr("QUEUEBOX_PG_BIN", "/usr/lib/postgresql/15/bin")
}

// Cluster is a private PostgreSQL server in a temporary directory, for the
// scenarios that restart or fail over a database: the shared server is
// never restarted.
type Cluster struct {
	t    testing.TB
	Dir  string
	Port int
}

// StartCluster initialises and starts a private cluster on a free port,
// with logical WAL and room for every replica's pool. It is stopped and
// removed when the test ends.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c := newCluster(t, FreePort(t))
	c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "--no-sync")
	c.start()
	return c
}

// newCluster prepares the directory of a cluster on port; the caller
// fills its data directory.
func newCluster(t testing.TB, port int) *Cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "queuebox-chaos-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, Dir: dir, Port: port}
	t.Cleanup(func() {
		c.Stop("immediate")
		c.keepLog()
		_ = os.RemoveAll(dir)
	})
	c.chown()
	return c
}

// keepLog keeps the server log under CHAOS_LOG_DIR (see keepLog), named
// by port and directory, before the directory goes: a failover removes
// the dead primary's directory, and its log tells what it committed last.
func (c *Cluster) keepLog() {
	log, err := os.ReadFile(filepath.Join(c.Dir, "log"))
	if err == nil {
		keepLog(c.t, fmt.Sprintf("postgres-%d-%s", c.Port, filepath.Base(c.Dir)), string(log))
	}
}

func (c *Cluster) start() {
	c.t.Helper()
	c.run("pg_ctl", "start", "-D", c.data(), "-l", filepath.Join(c.Dir, "log"), "-w", "-t", "120", "-o", c.options())
}

// Stop shuts the server down with mode (fast or immediate); a stopped
// server is left alone.
func (c *Cluster) Stop(mode string) {
	_ = c.command("pg_ctl", "stop", "-D", c.data(), "-m", mode, "-w").Run()
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

// options are the server settings: its own port and socket directory, so
// it never meets the shared server.
func (c *Cluster) options() string {
	return fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c wal_level=logical -c fsync=off",
		c.Port, c.Dir)
}

// URL is the maintenance database URL of the cluster.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port)
}

// Restart restarts the server with the shutdown mode (fast or immediate)
// and waits until it accepts connections again.
func (c *Cluster) Restart(mode string) {
	c.t.Helper()
	c.run("pg_ctl", "restart", "-D", c.data(), "-m", mode, "-w", "-t", "120", "-l", filepath.Join(c.Dir, "log"), "-o", c.options())
}

func (c *Cluster) run(name string, args ...string) {
	c.t.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
		c.t.Fatalf("%s %v: %v\n%s\nserver log:\n%s", name, args, err, out, log)
	}
}

// command runs a server program; as root it runs as the postgres user,
// because the server refuses to run as root.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	bin := filepath.Join(PGBin(), name)
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

// chown hands the directory to the postgres user when running as root.
func (c *Cluster) chown() {
	c.t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	uid, gid := systemUser(c.t, "postgres", "a private cluster")
	if err := os.Chown(c.Dir, uid, gid); err != nil {
		c.t.Fatal(err)
	}
}

// RestartUnderLoad is the injector of scenario 4: the step's Role names
// the shutdown mode. A role that exits on the lost connection is started
// again, as an orchestrator would; the scenario logs which.
func (c *Cluster) RestartUnderLoad(r *Run, s Step) {
	r.T.Helper()
	end := r.Ledger.Fault("postgres restart -m "+s.Role, "")
	c.Restart(s.Role)
	end()
	if gone := r.Fleet.Revive(); len(gone) > 0 {
		r.T.Logf("exited after the restart and started again: %v", gone)
	}
}
