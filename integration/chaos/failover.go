package chaos

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Pair is a private primary with a synchronous streaming standby on a
// second port. A failover kills the primary, promotes the standby, and
// builds a new standby in the dead primary's place, so the two ports of a
// multi-host URL stay valid for as many failovers as a run injects.
// Replication is synchronous: a commit that QueueBox saw succeed is on
// the standby, so a failover alone loses nothing.
type Pair struct {
	t     testing.TB
	nodes [2]*Cluster
	// primary indexes nodes.
	primary int
}

// StartPair starts a primary and its standby.
func StartPair(t testing.TB) *Pair {
	t.Helper()
	primary := StartCluster(t)
	p := &Pair{t: t, nodes: [2]*Cluster{primary, nil}}
	p.nodes[1] = p.standby(FreePort(t))
	return p
}

// standby builds a standby of the current primary on port and waits
// until the primary streams to it synchronously.
func (p *Pair) standby(port int) *Cluster {
	p.t.Helper()
	primary := p.nodes[p.primary]
	s := newCluster(p.t, port)
	s.run("pg_basebackup", "-D", s.data(), "-h", "127.0.0.1", "-p", fmt.Sprint(primary.Port), "-U", "postgres", "-R", "-X", "stream", "-c", "fast")
	s.start()
	primary.synchronous("*")
	WaitFor(p.t, 2*time.Minute, "the standby streams synchronously", func() bool {
		return primary.query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") == "1"
	})
	// Until now the primary committed alone: the commits it acknowledged
	// in that time reach the standby asynchronously, and a failover before
	// they do would lose them although replication is synchronous from
	// here on. A full run met that when the next failover came 50 ms after
	// the standby turned synchronous. Wait until the standby has flushed
	// everything written before this point.
	lsn := primary.query("SELECT pg_current_wal_lsn()")
	WaitFor(p.t, 2*time.Minute, "the standby holds every commit made before it turned synchronous", func() bool {
		return primary.query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND flush_lsn >= '"+lsn+"'::pg_lsn") == "1"
	})
	return s
}

// query runs one statement with psql on the cluster's maintenance
// database and returns its one value; empty when it failed.
func (c *Cluster) query(sql string) string {
	out, err := c.command("psql", "-h", "127.0.0.1", "-p", fmt.Sprint(c.Port), "-U", "postgres", "-d", "postgres", "-tAc", sql).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Primary is the maintenance URL of the current primary.
func (p *Pair) Primary() string { return p.nodes[p.primary].URL() }

// Hosts is the host list of a multi-host URL: both ports, first the
// first primary's.
func (p *Pair) Hosts() string {
	return fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", p.nodes[0].Port, p.nodes[1].Port)
}

// Database creates the scenario's database on the primary and points
// both the binaries and the suite at the two hosts, read-write only.
func (p *Pair) Database(t testing.TB) *Database {
	t.Helper()
	d := NewDatabase(t, p.Primary())
	d.JDBC = fmt.Sprintf("jdbc:postgresql://%s/%s?target_session_attrs=read-write", p.Hosts(), d.Name)
	d.URL = fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable&target_session_attrs=read-write", p.Hosts(), d.Name)
	cfg, err := pgxpool.ParseConfig(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.Pool.Close()
	d.Pool = pool
	t.Cleanup(pool.Close)
	return d
}

// Failover is the injector of scenario 5: it kills the primary, promotes
// the standby, and checks that within 30 s every replica either is ready
// and holds a session on the new primary, or exited non-zero (and is
// started again).
// It then builds the next standby in the old primary's place.
func (p *Pair) Failover(r *Run, _ Step) {
	r.T.Helper()
	old, next := p.nodes[p.primary], p.nodes[1-p.primary]
	end := r.Ledger.Fault("failover", "")
	defer end()
	old.Stop("immediate")
	next.run("pg_ctl", "promote", "-D", next.data(), "-w", "-t", "120")
	p.primary = 1 - p.primary
	// Until its standby is built, the new primary commits alone.
	next.synchronous("")
	promoted := time.Now()
	for _, proc := range r.Fleet.Live("") {
		WaitFor(r.T, 30*time.Second-time.Since(promoted)+time.Second, proc.Name+" writes to the new primary or exits", func() bool {
			if proc.Exited() {
				return true
			}
			// An idle replica holds no session: asking for its readiness
			// makes it check the database, through its pool.
			if !proc.Ready() {
				return false
			}
			n, err := r.DB.TryCount(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, proc.Name)
			return err == nil && n > 0
		})
		if proc.Exited() && proc.ExitCode() == 0 {
			r.T.Errorf("%s exited 0 after the failover", proc.Name)
		}
	}
	if gone := r.Fleet.Revive(); len(gone) > 0 {
		r.T.Logf("exited after the failover and started again: %v", gone)
	}
	r.T.Logf("failover: every replica on the new primary %v after the promotion", time.Since(promoted).Round(time.Millisecond))
	old.keepLog()
	_ = os.RemoveAll(old.Dir)
	p.nodes[1-p.primary] = p.standby(old.Port)
	r.T.Logf("failover: the next standby streams %v after the promotion", time.Since(promoted).Round(time.Millisecond))
}

// synchronous sets synchronous_standby_names: "*" makes every commit wait
// for the standby, "" lets the primary commit alone.
func (c *Cluster) synchronous(names string) {
	c.t.Helper()
	c.run("psql", "-h", "127.0.0.1", "-p", fmt.Sprint(c.Port), "-U", "postgres", "-d", "postgres", "-qc",
		"ALTER SYSTEM SET synchronous_standby_names = '"+names+"'")
	c.run("pg_ctl", "reload", "-D", c.data())
}
