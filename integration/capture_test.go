package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// captureSlots bounds the capture tests that run at once: each holds a
// replication slot and a walsender, and the server has ten of each for
// everybody on the machine.
var captureSlots = make(chan struct{}, 3)

// captureFixture is one database with a deliver-side environment, a
// capture environment, a publication on its outbox and a slot name that
// is dropped when the test ends.
type captureFixture struct {
	db       database
	rc       *brokertest.HTTPReceiver
	deliver  map[string]string
	capture  map[string]string
	stateDir string
	slot     string
	delivers int // started so far
}

func newCaptureFixture(t *testing.T, reconcileMs int) *captureFixture {
	t.Helper()
	captureSlots <- struct{}{}
	t.Cleanup(func() { <-captureSlots })
	db := newDatabase(t)
	f := &captureFixture{db: db, rc: brokertest.NewHTTPReceiver(t, nil), slot: db.Name, stateDir: t.TempDir()}
	// Registered before any process starts, so it runs after they stopped
	// and before the database is dropped (a slot blocks the drop).
	t.Cleanup(func() { f.dropSlot(t) })
	shared := with(destinationEnv(db.env(), f.rc.URL),
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "60000",
		"QUEUEBOX_OUTBOX_CAPTURE_MODE", "postgres-logical",
		"QUEUEBOX_OUTBOX_CAPTURE_SLOT", f.slot,
		"QUEUEBOX_OUTBOX_CAPTURE_PUBLICATION", "qb_pub",
		"QUEUEBOX_OUTBOX_CAPTURE_RECONCILIATIONINTERVALMS", fmt.Sprint(reconcileMs))
	f.deliver = shared
	f.capture = with(shared, "QUEUEBOX_OUTBOX_CAPTURE_ENABLED", "true",
		"QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY", f.stateDir)
	return f
}

// dropSlot drops the test's slot once its walsender is gone. Tests may;
// the product never does.
func (f *captureFixture) dropSlot(t *testing.T) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, f.db.URL)
	if err != nil {
		return
	}
	defer c.Close(ctx)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := c.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, f.slot)
		if err == nil {
			_, err = c.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, f.slot)
		}
		if err == nil || time.Now().After(deadline) {
			if err != nil {
				t.Logf("drop slot %s: %v", f.slot, err)
			}
			return
		}
		select {
		case <-time.After(100 * time.Millisecond): // the walsender exits asynchronously
		case <-ctx.Done():
			return
		}
	}
}

// startDeliver starts a deliver replica (which migrates) and creates the
// publication once the outbox exists.
func (f *captureFixture) startDeliver(t *testing.T) *process {
	t.Helper()
	p := startServing(t, "deliver", f.deliver)
	p.waitHTTP(t, "/health/ready", 200)
	// Ready does not wait for the wake-up listener; a test that expects a
	// wake must not insert before every replica listens (a replica that
	// LISTENs later claims once then, but a test freezing another replica
	// would wait for its reconciliation instead).
	f.delivers++
	c := f.db.connect(t)
	require.Eventually(t, func() bool {
		var n int
		err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query ILIKE 'LISTEN %'`).Scan(&n)
		return err == nil && n >= f.delivers
	}, 60*time.Second, 20*time.Millisecond, "every deliver replica listens for wake-ups")
	return p
}

func (f *captureFixture) createPublication(t *testing.T) {
	t.Helper()
	_, err := f.db.connect(t).Exec(context.Background(), `CREATE PUBLICATION qb_pub FOR TABLE outbox`)
	require.NoError(t, err)
}

// ranOnce starts a deliver replica, creates the publication, and runs
// capture once until it is up, then stops it cleanly: the state files,
// the state row and the slot exist for a second start.
func (f *captureFixture) ranOnce(t *testing.T) {
	t.Helper()
	f.startDeliver(t)
	f.createPublication(t)
	first := f.startCapture(t, f.capture, "up")
	require.Equal(t, 0, first.terminate(t, 30*time.Second))
}

// startCapture starts queuebox-capture and waits until its advisory
// component reads want ("up" or a fault kind).
func (f *captureFixture) startCapture(t *testing.T, env map[string]string, want string) *process {
	t.Helper()
	p := startServing(t, "capture", env)
	waitCapture(t, p, want)
	return p
}

// waitCapture waits until the outbox-capture component shows want: "up",
// or a text of its error. Readiness stays 200 throughout: the component
// is advisory.
func waitCapture(t *testing.T, p *process, want string) {
	t.Helper()
	require.Eventually(t, func() bool {
		code, body := get(t, p.url("/health/ready"))
		var r struct {
			Components map[string]struct{ Status, Error string }
		}
		if json.Unmarshal([]byte(body), &r) != nil {
			return false
		}
		require.Equal(t, 200, code, "outbox-capture never makes readiness fail: %s", body)
		c := r.Components["outbox-capture"]
		if want == "up" {
			return c.Status == "up"
		}
		return c.Status == "down" && strings.Contains(c.Error, want)
	}, 60*time.Second, 50*time.Millisecond, "outbox-capture %s\n%s", want, p.out.String())
}

// insert commits one outbox row and returns its commit time.
func insertRow(t *testing.T, c *pgx.Conn, i int) time.Time {
	t.Helper()
	_, err := c.Exec(context.Background(), `INSERT INTO outbox (topic, payload) VALUES ('capture.test', jsonb_build_object('i', $1::int))`, i)
	require.NoError(t, err)
	return time.Now()
}

// arrivals maps each delivered row's i to its first arrival.
func arrivals(rc *brokertest.HTTPReceiver) map[int]time.Time {
	out := map[int]time.Time{}
	for _, r := range rc.Requests() {
		var body struct{ I int }
		if json.Unmarshal([]byte(r.Body), &body) == nil {
			if _, seen := out[body.I]; !seen {
				out[body.I] = r.Arrived
			}
		}
	}
	return out
}

func waitDelivered(t *testing.T, rc *brokertest.HTTPReceiver, within time.Duration, rows ...int) {
	t.Helper()
	require.Eventually(t, func() bool {
		got := arrivals(rc)
		for _, i := range rows {
			if _, ok := got[i]; !ok {
				return false
			}
		}
		return true
	}, within, 10*time.Millisecond, "rows %v delivered", rows)
}

// TestCaptureWakesDeliveryPromptly: with pollIntervalMs 60000 and a
// reconciliation interval as long, only capture's wake-up delivers a row
// within seconds.
func TestCaptureWakesDeliveryPromptly(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	f.startDeliver(t)
	f.createPublication(t)
	f.startCapture(t, f.capture, "up")
	c := f.db.connect(t)
	const n = 200
	committed := make([]time.Time, n)
	for i := range n {
		committed[i] = insertRow(t, c, i)
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	waitDelivered(t, f.rc, 30*time.Second, rows...)
	got := arrivals(f.rc)
	lat := make([]time.Duration, n)
	for i := range n {
		lat[i] = got[i].Sub(committed[i])
		require.Less(t, lat[i], 15*time.Second, "row %d came through a wake-up, not a poll", i)
	}
	slices.Sort(lat)
	t.Logf("commit to delivery over %d rows: p50 %v, p99 %v, max %v", n, lat[n/2], lat[n*99/100], lat[n-1])
}

// TestCaptureResumesFromItsPosition: a restarted capture continues from
// offsets.dat on the same identity and slot, and the rows inserted while
// it was down are delivered after it returns.
func TestCaptureResumesFromItsPosition(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	f.startDeliver(t)
	f.createPublication(t)
	first := f.startCapture(t, f.capture, "up")
	c := f.db.connect(t)
	insertRow(t, c, 1)
	waitDelivered(t, f.rc, 15*time.Second, 1)
	var instance string
	require.NoError(t, c.QueryRow(context.Background(), `SELECT instance_id::text FROM queuebox_capture_state`).Scan(&instance))
	require.Equal(t, 0, first.terminate(t, 30*time.Second))
	offset, err := os.ReadFile(filepath.Join(f.stateDir, "offsets.dat"))
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(offset)))

	for i := 2; i <= 4; i++ {
		insertRow(t, c, i)
	}
	second := f.startCapture(t, f.capture, "up")
	waitDelivered(t, f.rc, 15*time.Second, 2, 3, 4)
	insertRow(t, c, 5)
	waitDelivered(t, f.rc, 15*time.Second, 5)
	var again string
	require.NoError(t, c.QueryRow(context.Background(), `SELECT instance_id::text FROM queuebox_capture_state`).Scan(&again))
	require.Equal(t, instance, again, "the same instance resumed")
	require.NotContains(t, second.out.String(), "replication slot created", "the slot of the first run is reused")
	require.Contains(t, second.out.String(), "capture streaming")
}

// TestCaptureSecondOwnerIsRefused: a second process with the same
// identity reports the owner, stays ready, and delivery goes on.
func TestCaptureSecondOwnerIsRefused(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	f.startDeliver(t)
	f.createPublication(t)
	f.startCapture(t, f.capture, "up")
	other := with(f.capture, "QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY", t.TempDir())
	second := f.startCapture(t, other, "already has an owner")
	insertRow(t, f.db.connect(t), 1)
	waitDelivered(t, f.rc, 15*time.Second, 1)
	require.Contains(t, second.out.String(), "identity-owned")
}

// TestCaptureReportsAnEmptyStateDirectory: the table says capture ran but
// the volume is empty; capture stops with the fault, and delivery goes on
// through the reconciliation timer.
func TestCaptureReportsAnEmptyStateDirectory(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 500)
	f.ranOnce(t)
	require.NoError(t, os.RemoveAll(f.stateDir))
	second := f.startCapture(t, f.capture, "state-missing")
	_, body := get(t, second.url("/health/ready"))
	require.Contains(t, body, "recover-capture", "the report points at the recovery steps")
	insertRow(t, f.db.connect(t), 1)
	waitDelivered(t, f.rc, 30*time.Second, 1)
}

// TestCaptureReportsADroppedSlot: the slot disappeared while the state
// remains.
func TestCaptureReportsADroppedSlot(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	f.ranOnce(t)
	f.dropSlot(t)
	second := f.startCapture(t, f.capture, "slot-missing")
	require.Contains(t, second.out.String(), f.slot)
}

// TestCaptureRefusesAnOffsetAheadOfTheServer: an offsets.dat past the
// server's WAL stops capture with state-corrupt instead of moving the slot
// to the end of the log; the slot stays where it was, and delivery goes
// on through the reconciliation timer.
func TestCaptureRefusesAnOffsetAheadOfTheServer(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 500)
	f.ranOnce(t)
	c := f.db.connect(t)
	slotAt := func() string {
		var lsn string
		require.NoError(t, c.QueryRow(context.Background(),
			`SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1`, f.slot).Scan(&lsn))
		return lsn
	}
	before := slotAt()
	require.NoError(t, os.WriteFile(filepath.Join(f.stateDir, "offsets.dat"), []byte("FFFF/FFFFFFFF\n"), 0o600))
	second := f.startCapture(t, f.capture, "state-corrupt")
	require.Contains(t, second.out.String(), "FFFF/FFFFFFFF")
	insertRow(t, c, 1)
	waitDelivered(t, f.rc, 30*time.Second, 1)
	require.Equal(t, before, slotAt(), "the slot did not move")
}

// TestCaptureReportsAMissingPublication: QueueBox never creates it.
func TestCaptureReportsAMissingPublication(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	f.startDeliver(t)
	p := f.startCapture(t, f.capture, "publication-missing")
	_, body := get(t, p.url("/health/ready"))
	require.Contains(t, body, `\"qb_pub\"`)
	var n int
	require.NoError(t, f.db.connect(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_publication`).Scan(&n))
	require.Zero(t, n)
}

// TestCaptureKilledMidStreamLosesNothing: kill -9 of capture while rows
// are inserted; the reconciliation timer delivers every row.
func TestCaptureKilledMidStreamLosesNothing(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 1000)
	f.startDeliver(t)
	f.createPublication(t)
	p := f.startCapture(t, f.capture, "up")
	c := f.db.connect(t)
	const n = 300
	rows := make([]int, n)
	for i := range n {
		rows[i] = i
		insertRow(t, c, i)
		if i == n/2 {
			p.kill()
		}
	}
	waitDelivered(t, f.rc, 60*time.Second, rows...)
	// A new owner takes the identity over: the killed session's lock went
	// with its backend.
	f.startCapture(t, f.capture, "up")
}

// TestCaptureWakesEveryDeliverReplica: each of two replicas is woken
// while the other is frozen (SIGSTOP), with a 60 s reconciliation.
func TestCaptureWakesEveryDeliverReplica(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	a := f.startDeliver(t)
	b := f.startDeliver(t)
	f.createPublication(t)
	f.startCapture(t, f.capture, "up")
	c := f.db.connect(t)
	for i, frozen := range []*process{a, b} {
		require.NoError(t, frozen.cmd.Process.Signal(syscall.SIGSTOP))
		insertRow(t, c, i)
		waitDelivered(t, f.rc, 15*time.Second, i)
		require.NoError(t, frozen.cmd.Process.Signal(syscall.SIGCONT))
	}
}

// TestCaptureDeliverRelistens: a deliver replica whose LISTEN backend was
// terminated listens again and is still woken.
func TestCaptureDeliverRelistens(t *testing.T) {
	t.Parallel()
	f := newCaptureFixture(t, 60000)
	f.startDeliver(t)
	f.createPublication(t)
	f.startCapture(t, f.capture, "up")
	c := f.db.connect(t)
	listener := func() (pid int) {
		_ = c.QueryRow(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&pid)
		return pid
	}
	var old int
	require.Eventually(t, func() bool { old = listener(); return old != 0 }, 15*time.Second, 20*time.Millisecond)
	_, err := c.Exec(context.Background(), `SELECT pg_terminate_backend($1)`, old)
	require.NoError(t, err)
	require.Eventually(t, func() bool { p := listener(); return p != 0 && p != old }, 30*time.Second, 20*time.Millisecond)
	insertRow(t, c, 1)
	waitDelivered(t, f.rc, 15*time.Second, 1)
}
