package retention_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/retention"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// rows is a fake table: a step deletes up to batch of its rows.
type rows struct {
	mu    sync.Mutex
	left  int64
	calls []int // the batch of every call
	fail  error
}

func (r *rows) step(_ context.Context, batch int) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, batch)
	if r.fail != nil {
		return 0, r.fail
	}
	n := min(r.left, int64(batch))
	r.left -= n
	return n, nil
}

func (r *rows) state() (int64, []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left, append([]int(nil), r.calls...)
}

func newJob(table string, batch int, m *retention.Metrics, steps ...retention.Deleter) *retention.Job {
	return &retention.Job{Table: table, Interval: time.Hour, Batch: batch, Steps: steps, Metrics: m, Logger: quiet()}
}

func TestRunOnceDrainsEachStepInBatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		rows  int64
		batch int
		calls []int
	}{
		{"nothing to delete", 0, 2, []int{2}},
		{"fewer than a batch", 1, 2, []int{2}},
		{"exactly one batch", 2, 2, []int{2, 2}},
		{"five rows in batches of two", 5, 2, []int{2, 2, 2}},
		{"batches of one", 3, 1, []int{1, 1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reg := prometheus.NewRegistry()
			table := &rows{left: tc.rows}
			job := newJob("outbox", tc.batch, retention.NewMetrics(reg), table.step)
			job.RunOnce(context.Background())
			left, calls := table.state()
			require.Zero(t, left)
			require.Equal(t, tc.calls, calls)
		})
	}
}

func TestRunOnceRunsEveryStepInOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	step := func(name string, r *rows) retention.Deleter {
		return func(ctx context.Context, batch int) (int64, error) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return r.step(ctx, batch)
		}
	}
	sent, dead := &rows{left: 3}, &rows{left: 1}
	m := retention.NewMetrics(prometheus.NewRegistry())
	job := newJob("outbox", 2, m, step("sent", sent), step("dead", dead))
	job.RunOnce(context.Background())
	require.Equal(t, []string{"sent", "sent", "dead"}, order)
	require.Equal(t, 4.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
}

func TestRunOnceRecordsMetricsPerTable(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := retention.NewMetrics(reg)
	outbox := newJob("outbox", 10, m, (&rows{left: 25}).step)
	inbox := newJob("inbox", 10, m, (&rows{left: 4}).step)

	before := time.Now().Unix()
	outbox.RunOnce(context.Background())
	inbox.RunOnce(context.Background())
	inbox.RunOnce(context.Background()) // nothing left: the counter stays

	require.Equal(t, 25.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
	require.Equal(t, 4.0, testutil.ToFloat64(m.Deleted.WithLabelValues("inbox")))
	for _, table := range []string{"outbox", "inbox"} {
		last := testutil.ToFloat64(m.LastRun.WithLabelValues(table))
		require.GreaterOrEqual(t, last, float64(before), "last run of %s", table)
		require.LessOrEqual(t, last, float64(time.Now().Unix()), "last run of %s", table)
	}

	families, err := reg.Gather()
	require.NoError(t, err)
	counts := map[string]uint64{}
	maxSeries := 0
	for _, f := range families {
		switch f.GetName() {
		case "queuebox_cleanup_duration_seconds":
			for _, s := range f.GetMetric() {
				counts[s.GetLabel()[0].GetValue()] = s.GetSummary().GetSampleCount()
			}
		case "queuebox_cleanup_duration_seconds_max":
			maxSeries = len(f.GetMetric())
		}
	}
	require.Equal(t, map[string]uint64{"outbox": 1, "inbox": 2}, counts, "one duration per run")
	require.Equal(t, 2, maxSeries)
}

func TestCheckFollowsTheLastRun(t *testing.T) {
	t.Parallel()
	boom := errors.New("relation \"outbox\" does not exist")
	sent, dead := &rows{left: 3}, &rows{fail: boom}
	m := retention.NewMetrics(prometheus.NewRegistry())
	later := &rows{left: 2}
	job := newJob("outbox", 2, m, sent.step, dead.step, later.step)

	require.NoError(t, job.Check(context.Background()), "up before the first run")
	job.RunOnce(context.Background())
	err := job.Check(context.Background())
	require.ErrorContains(t, err, "outbox")
	// The rows of the failing run before the failure still count; the
	// steps after it wait for the next run.
	require.Equal(t, 3.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
	left, calls := later.state()
	require.Equal(t, int64(2), left)
	require.Empty(t, calls)

	dead.mu.Lock()
	dead.fail = nil
	dead.mu.Unlock()
	job.RunOnce(context.Background())
	require.NoError(t, job.Check(context.Background()), "up after a good run")
	left, _ = later.state()
	require.Zero(t, left)
}

func TestRunCleansAtOnceThenOnItsInterval(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	step := func(context.Context, int) (int64, error) {
		runs.Add(1)
		return 0, nil
	}
	for _, tc := range []struct {
		name     string
		interval time.Duration
		atLeast  int64
	}{
		{"first run at start", time.Hour, 1},
		{"then every interval", 5 * time.Millisecond, 3},
	} {
		runs.Store(0)
		job := newJob("inbox", 10, retention.NewMetrics(prometheus.NewRegistry()), step)
		job.Interval = tc.interval
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- job.Run(ctx) }()
		require.Eventually(t, func() bool { return runs.Load() >= tc.atLeast }, 10*time.Second, time.Millisecond, tc.name)
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Run did not return after cancel", tc.name)
		}
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "retention-outbox", (&retention.Job{Table: "outbox"}).Name())
}

// A failed cycle marks the component down; the job tries again after its
// retry delay instead of a whole interval, so readiness comes back soon
// after the database does.
func TestRunRetriesAFailedCycleBeforeTheInterval(t *testing.T) {
	t.Parallel()
	table := &rows{left: 3, fail: errors.New("connection refused")}
	job := newJob("outbox", 10, retention.NewMetrics(prometheus.NewRegistry()), table.step)
	job.RetryDelay = time.Millisecond // Interval stays an hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- job.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	require.Eventually(t, func() bool { _, calls := table.state(); return len(calls) >= 1 }, 10*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return job.Check(context.Background()) != nil }, 10*time.Second, time.Millisecond)
	table.mu.Lock()
	table.fail = nil
	table.mu.Unlock()
	require.Eventually(t, func() bool { left, _ := table.state(); return left == 0 }, 10*time.Second, time.Millisecond,
		"a later cycle ran within the hour-long interval")
	require.Eventually(t, func() bool { return job.Check(context.Background()) == nil }, 10*time.Second, time.Millisecond)
}

// The outbox and inbox jobs of one process (queuebox with relay and
// deliver) each call NewMetrics on the one registry: the second call
// shares the families instead of panicking, and both count into them.
func TestNewMetricsTwiceOnOneRegistryShares(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	first, second := retention.NewMetrics(reg), retention.NewMetrics(reg)
	newJob("outbox", 10, first, (&rows{left: 3}).step).RunOnce(context.Background())
	newJob("inbox", 10, second, (&rows{left: 2}).step).RunOnce(context.Background())
	require.Equal(t, 3.0, testutil.ToFloat64(second.Deleted.WithLabelValues("outbox")))
	require.Equal(t, 2.0, testutil.ToFloat64(first.Deleted.WithLabelValues("inbox")))
	n, err := testutil.GatherAndCount(reg, "queuebox_cleanup_duration_seconds")
	require.NoError(t, err)
	require.Equal(t, 2, n, "one summary series per table")
}
