package sqlserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
)

// fakeLocker hands out one lock at a time, like the application lock.
type fakeLocker struct {
	mu       sync.Mutex
	heldBy   string // "" when free; "other" when another process holds it
	tries    int
	released int
	beatErr  error
}

func (l *fakeLocker) TryLock(_ context.Context, identity string) (Lock, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tries++
	if l.heldBy != "" {
		return nil, false, nil
	}
	l.heldBy = identity
	return &fakeLock{l: l}, true, nil
}

func (l *fakeLocker) failHeartbeats(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.beatErr = err
}

func (l *fakeLocker) counts() (tries, released int, heldBy string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tries, l.released, l.heldBy
}

type fakeLock struct{ l *fakeLocker }

func (f *fakeLock) Heartbeat(context.Context) error {
	f.l.mu.Lock()
	defer f.l.mu.Unlock()
	return f.l.beatErr
}

func (f *fakeLock) Release() {
	f.l.mu.Lock()
	defer f.l.mu.Unlock()
	f.l.released++
	f.l.heldBy = ""
}

// cdcOn answers as a database with capture ready and nothing registered.
func cdcOn() *fakeDB {
	return &fakeDB{answers: map[string][]any{"cdc_database_enabled": {1}, "cdc_table_enabled": {1},
		"cdc_agent_running": {1}, "cdc_min_lsn": {[]byte(lsn(2))}, "cdc_max_lsn": {[]byte(lsn(5))}, "cdc_inserts": {int64(0)}}}
}

func settings(dir string) capture.Settings {
	return capture.Settings{Identity: "queuebox", Schema: "dbo", Table: "outbox", Host: "db.internal", Database: "queuebox", StateDirectory: dir}
}

// started runs a Runner until the test ends and returns it.
func started(t *testing.T, db *fakeDB, locker Locker, dir string) *Runner {
	t.Helper()
	r, err := NewRunner(Options{Settings: settings(dir), DB: db, Locker: locker, Metrics: capture.NewMetrics(prometheus.NewRegistry()),
		Poll: time.Millisecond, Heartbeat: time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
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

func offset(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "offsets.dat"))
	if err != nil {
		return ""
	}
	return string(b)
}

const wait, tick = 30 * time.Second, 5 * time.Millisecond

func TestRunnerFirstStartRecordsThePresentAndWakesOnInserts(t *testing.T) {
	t.Parallel()
	db, locker, dir := cdcOn(), &fakeLocker{}, t.TempDir()
	r := started(t, db, locker, dir)
	require.Eventually(t, func() bool { return r.Check(context.Background()) == nil }, wait, tick)
	require.Equal(t, lsn(5).String()+"\n", offset(t, dir), "a first start begins at the highest LSN")
	require.Equal(t, 1, db.count("capture_state_insert"))
	id, err := capture.NewStateDir(dir).ReadIdentity()
	require.NoError(t, err)
	require.Equal(t, "queuebox", id.Name)
	require.Equal(t, 2, db.count("wake_bump"), "a wake-up for the attempt, one for the rows already there")
	require.Zero(t, db.count("cdc_inserts"), "nothing after the recorded LSN yet")

	db.set("cdc_max_lsn", []byte(lsn(8)))
	db.set("cdc_inserts", int64(3))
	require.Eventually(t, func() bool { return offset(t, dir) == lsn(8).String()+"\n" }, wait, tick)
	require.Eventually(t, func() bool { return db.count("wake_bump") == 3 }, wait, tick)
	db.mu.Lock()
	require.Equal(t, []any{[]byte(lsn(5)), []byte(lsn(8))}, db.args["cdc_inserts"], "reads after the stored LSN up to the highest")
	db.mu.Unlock()
	require.Equal(t, 1.0, testutil.ToFloat64(r.opts.Metrics.Events))
	require.Equal(t, 3.0, testutil.ToFloat64(r.opts.Metrics.Wakeups))

	// Updates and deletes only: the position moves, nobody wakes.
	db.set("cdc_max_lsn", []byte(lsn(9)))
	db.set("cdc_inserts", int64(0))
	require.Eventually(t, func() bool { return offset(t, dir) == lsn(9).String()+"\n" }, wait, tick)
	require.Equal(t, 3, db.count("wake_bump"))
}

func TestRunnerRestartReadsFromTheStoredLSN(t *testing.T) {
	t.Parallel()
	db, dir := cdcOn(), t.TempDir()
	s := settings(dir)
	require.NoError(t, capture.NewStateDir(dir).WriteIdentity(s.Identity, "4b1c8f0e-0000-4000-8000-000000000001", s))
	require.NoError(t, capture.NewStateDir(dir).WriteOffset(lsn(3).String()))
	db.answers["capture_state_find"] = []any{"4b1c8f0e-0000-4000-8000-000000000001", s.Fingerprint()}
	db.answers["cdc_inserts"] = []any{int64(1)}
	r := started(t, db, &fakeLocker{}, dir)
	require.Eventually(t, func() bool { return offset(t, dir) == lsn(5).String()+"\n" }, wait, tick)
	require.NoError(t, r.Check(context.Background()))
	require.Zero(t, db.count("capture_state_insert"))
	require.Equal(t, 1, db.count("capture_state_touch"))
	db.mu.Lock()
	require.Equal(t, []any{[]byte(lsn(3)), []byte(lsn(5))}, db.args["cdc_inserts"])
	db.mu.Unlock()
}

// TestRunnerFaultsStopCapture: every fault shows in the health check and
// stops capture without a retry; delivery is not the connector's concern.
func TestRunnerFaultsStopCapture(t *testing.T) {
	t.Parallel()
	const instance = "4b1c8f0e-0000-4000-8000-000000000001"
	for _, tc := range []struct {
		name    string
		prepare func(db *fakeDB, l *fakeLocker, dir string)
		kind    capture.FaultKind
	}{
		{"identity owned", func(_ *fakeDB, l *fakeLocker, _ string) { l.heldBy = "other" }, capture.FaultIdentityOwned},
		{"database not enabled", func(db *fakeDB, _ *fakeLocker, _ string) { db.answers["cdc_database_enabled"] = []any{0} }, FaultDatabaseNotEnabled},
		{"agent stopped", func(db *fakeDB, _ *fakeLocker, _ string) { db.answers["cdc_agent_running"] = []any{0} }, FaultAgentStopped},
		{"state missing", func(db *fakeDB, _ *fakeLocker, _ string) {
			db.answers["capture_state_find"] = []any{instance, "v1:x"}
		}, capture.FaultStateMissing},
		{"stored LSN ahead", func(db *fakeDB, _ *fakeLocker, dir string) {
			s := settings(dir)
			_ = capture.NewStateDir(dir).WriteIdentity(s.Identity, instance, s)
			_ = capture.NewStateDir(dir).WriteOffset(lsn(7).String())
			db.answers["capture_state_find"] = []any{instance, s.Fingerprint()}
		}, capture.FaultStateCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, locker, dir := cdcOn(), &fakeLocker{}, t.TempDir()
			tc.prepare(db, locker, dir)
			r := started(t, db, locker, dir)
			var fault *capture.Fault
			require.Eventually(t, func() bool { return errors.As(r.Check(context.Background()), &fault) }, wait, tick)
			require.Equal(t, tc.kind, fault.Kind)
			require.Zero(t, db.count("cdc_inserts"), "no change is read after a fault")
			tries, _, _ := locker.counts()
			require.Equal(t, 1, tries, "a fault is not retried")
		})
	}
}

func TestRunnerRetakesTheLockAfterTheSessionFailed(t *testing.T) {
	t.Parallel()
	db, locker, dir := cdcOn(), &fakeLocker{}, t.TempDir()
	r := started(t, db, locker, dir)
	require.Eventually(t, func() bool { return r.Check(context.Background()) == nil }, wait, tick)
	locker.failHeartbeats(errors.New("session gone"))
	require.Eventually(t, func() bool {
		_, released, _ := locker.counts()
		return released >= 1
	}, wait, tick)
	require.Eventually(t, func() bool { return r.Check(context.Background()) != nil }, wait, tick)
	require.ErrorContains(t, r.Check(context.Background()), "session gone")
	locker.failHeartbeats(nil)
	require.Eventually(t, func() bool {
		tries, _, held := locker.counts()
		return tries >= 2 && held == "queuebox" && r.Check(context.Background()) == nil
	}, wait, tick)
}

func TestRegisterTakesTheRowBackWhenTheIdentityFileFails(t *testing.T) {
	t.Parallel()
	db, parent := cdcOn(), t.TempDir()
	dir := filepath.Join(parent, "state")
	require.NoError(t, os.WriteFile(dir, nil, 0o600), "a file where the directory should be")
	c, err := New(db, "dbo", "outbox")
	require.NoError(t, err)
	err = c.register(context.Background(), capture.NewStateDir(dir), settings(dir), "4b1c8f0e-0000-4000-8000-000000000001")
	require.Error(t, err)
	require.Equal(t, []string{"capture_state_insert", "capture_state_delete"}, db.calls)
	require.Equal(t, []any{"queuebox", "4b1c8f0e-0000-4000-8000-000000000001"}, db.args["capture_state_delete"])
}

func TestNewRunnerNeedsTheStateDirectory(t *testing.T) {
	t.Parallel()
	_, err := NewRunner(Options{DB: cdcOn(), Locker: &fakeLocker{}})
	require.ErrorContains(t, err, "outbox.capture.stateDirectory (QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY): required")
}

// TestRunnerStoredLSNCleanedUp: cleanup moved the lowest LSN past the
// stored position while capture was stopped; capture starts without a
// fault, wakes delivery once for what cleanup removed and reads from the
// lowest LSN.
func TestRunnerStoredLSNCleanedUp(t *testing.T) {
	t.Parallel()
	const instance = "4b1c8f0e-0000-4000-8000-000000000001"
	db, dir := cdcOn(), t.TempDir()
	s := settings(dir)
	require.NoError(t, capture.NewStateDir(dir).WriteIdentity(s.Identity, instance, s))
	require.NoError(t, capture.NewStateDir(dir).WriteOffset(lsn(1).String()))
	db.answers["capture_state_find"] = []any{instance, s.Fingerprint()}
	db.set("cdc_min_lsn", []byte(lsn(2)))
	db.set("cdc_max_lsn", []byte(lsn(6)))
	db.set("cdc_inserts", int64(1))
	r := started(t, db, &fakeLocker{}, dir)
	require.Eventually(t, func() bool { return offset(t, dir) == lsn(6).String()+"\n" }, wait, tick)
	require.NoError(t, r.Check(context.Background()))
	db.mu.Lock()
	require.Equal(t, []any{[]byte(lsn(2)), []byte(lsn(6))}, db.args["cdc_inserts"], "read from the lowest LSN")
	db.mu.Unlock()
}

// TestRunnerFirstStartBeforeAnyLSN: the highest LSN is NULL at the first
// start, so capture records the zero LSN; once changes exist it wakes
// once, moves to the lowest LSN held and reads from there, without a
// state-corrupt fault.
func TestRunnerFirstStartBeforeAnyLSN(t *testing.T) {
	t.Parallel()
	db, dir := cdcOn(), t.TempDir()
	db.answers["cdc_min_lsn"], db.answers["cdc_max_lsn"] = []any{nil}, []any{nil}
	r := started(t, db, &fakeLocker{}, dir)
	require.Eventually(t, func() bool { return r.Check(context.Background()) == nil }, wait, tick)
	require.Equal(t, make(LSN, lsnSize).String()+"\n", offset(t, dir))
	bumps := db.count("wake_bump")
	db.set("cdc_min_lsn", []byte(lsn(2)))
	db.set("cdc_max_lsn", []byte(lsn(6)))
	db.set("cdc_inserts", int64(1))
	require.Eventually(t, func() bool { return offset(t, dir) == lsn(6).String()+"\n" }, wait, tick)
	require.NoError(t, r.Check(context.Background()))
	require.Equal(t, bumps+2, db.count("wake_bump"), "one for the first LSN, one for the insert")
	db.mu.Lock()
	require.Equal(t, []any{[]byte(lsn(2)), []byte(lsn(6))}, db.args["cdc_inserts"])
	db.mu.Unlock()
}
