package retention_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/retention"
)

// callLog is a RetentionStore that records each call and deletes nothing.
type callLog struct{ calls []string }

func (c *callLog) OutboxByAge(_ context.Context, maxAge time.Duration, batch int) (int64, error) {
	c.calls = append(c.calls, fmt.Sprintf("outbox age %v batch %d", maxAge, batch))
	return 0, nil
}

func (c *callLog) OutboxByCount(_ context.Context, state queuebox.State, keep, batch int) (int64, error) {
	c.calls = append(c.calls, fmt.Sprintf("outbox %s keep %d batch %d", state, keep, batch))
	return 0, nil
}

func (c *callLog) InboxByAge(_ context.Context, maxAge time.Duration, batch int) (int64, error) {
	c.calls = append(c.calls, fmt.Sprintf("inbox age %v batch %d", maxAge, batch))
	return 0, nil
}

func (c *callLog) LedgerByAge(_ context.Context, maxAge time.Duration, batch int) (int64, error) {
	c.calls = append(c.calls, fmt.Sprintf("ledger age %v batch %d", maxAge, batch))
	return 0, nil
}

// cycle builds the job of table from opts and runs one cycle; it returns
// the store calls of the cycle.
func cycle(t *testing.T, table string, opts retention.Options) []string {
	t.Helper()
	store := &callLog{}
	build := map[string]func(retention.Options, queuebox.RetentionStore, prometheus.Registerer, *slog.Logger) (*retention.Job, error){
		"outbox": retention.Outbox, "inbox": retention.Inbox, "ledger": retention.Ledger}[table]
	job, err := build(opts, store, prometheus.NewRegistry(), quiet())
	require.NoError(t, err)
	require.True(t, job.RunOnce(context.Background()))
	return store.calls
}

func TestEachPolicyDeletesWhatItNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"outbox age 1h0m0s batch 1000"},
		cycle(t, "outbox", retention.Options{Policy: retention.PolicyAge, MaxAge: time.Hour}), "the default batch")
	require.Equal(t, []string{"outbox sent keep 3 batch 10", "outbox dead keep 3 batch 10"},
		cycle(t, "outbox", retention.Options{Policy: retention.PolicyCount, KeepCount: 3, BatchSize: 10}),
		"COUNT keeps the newest rows of each final state")
	require.Equal(t, []string{"inbox age 1m0s batch 5"},
		cycle(t, "inbox", retention.Options{Policy: retention.PolicyAge, MaxAge: time.Minute, BatchSize: 5}))
	require.Empty(t, cycle(t, "outbox", retention.Options{}), "no policy is DISABLED: the job runs and deletes nothing")
	require.Empty(t, cycle(t, "inbox", retention.Options{Policy: retention.PolicyDisabled}))
	require.Equal(t, []string{"ledger age 168h0m0s batch 1000"},
		cycle(t, "ledger", retention.Options{Policy: retention.PolicyAge, MaxAge: 7 * 24 * time.Hour}))
	require.Empty(t, cycle(t, "ledger", retention.Options{Policy: retention.PolicyDisabled}))
}

// The ledger is never partitioned: its cleanup deletes row by row even
// where the outbox drops partitions, and COUNT is not one of its policies.
func TestLedgerCleanup(t *testing.T) {
	t.Parallel()
	store := &dropLog{}
	job, err := retention.Ledger(retention.Options{Policy: retention.PolicyAge, MaxAge: time.Hour}, store, prometheus.NewRegistry(), quiet())
	require.NoError(t, err)
	require.Equal(t, "ledger", job.Table)
	require.True(t, job.RunOnce(context.Background()))
	require.Equal(t, []string{"ledger age 1h0m0s batch 1000"}, store.calls)
	_, err = retention.Ledger(retention.Options{Policy: retention.PolicyCount, KeepCount: 1}, store, prometheus.NewRegistry(), quiet())
	require.ErrorContains(t, err, "retention ledger: policy must be one of")
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	job, err := retention.Outbox(retention.Options{}, &callLog{}, prometheus.NewRegistry(), quiet())
	require.NoError(t, err)
	require.Equal(t, retention.DefaultInterval, job.Interval)
	require.Equal(t, retention.DefaultBatchSize, job.Batch)
	require.Equal(t, "outbox", job.Table)
}

func TestOptionsRefusesAPolicyWithoutItsSetting(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		inbox bool
		opts  retention.Options
		want  string
	}{
		"AGE without max age":       {opts: retention.Options{Policy: retention.PolicyAge}, want: "max age"},
		"COUNT without a count":     {opts: retention.Options{Policy: retention.PolicyCount}, want: "keep count"},
		"unknown policy":            {opts: retention.Options{Policy: "age"}, want: `got "age"`},
		"COUNT on the inbox":        {inbox: true, opts: retention.Options{Policy: retention.PolicyCount, KeepCount: 1}, want: "retention inbox: policy must be one of"},
		"negative batch":            {opts: retention.Options{BatchSize: -1}, want: "above 0"},
		"negative interval":         {inbox: true, opts: retention.Options{Interval: -time.Second}, want: "above 0"},
		"AGE with negative age":     {opts: retention.Options{Policy: retention.PolicyAge, MaxAge: -time.Hour}, want: "max age"},
		"COUNT with only a max age": {opts: retention.Options{Policy: retention.PolicyCount, MaxAge: time.Hour}, want: "keep count"},
	} {
		build := retention.Outbox
		if tc.inbox {
			build = retention.Inbox
		}
		_, err := build(tc.opts, &callLog{}, prometheus.NewRegistry(), quiet())
		require.ErrorContains(t, err, tc.want, name)
	}
}

// dropLog is a callLog that also drops partitions.
type dropLog struct{ callLog }

func (d *dropLog) OutboxDropPartitions(_ context.Context, maxAge time.Duration) (int64, error) {
	d.calls = append(d.calls, fmt.Sprintf("outbox drop %v", maxAge))
	return 0, nil
}

func (d *dropLog) InboxDropPartitions(_ context.Context, maxAge time.Duration) (int64, error) {
	d.calls = append(d.calls, fmt.Sprintf("inbox drop %v", maxAge))
	return 0, nil
}

func TestAgeDropsPartitionsBeforeItDeletesRows(t *testing.T) {
	t.Parallel()
	run := func(build func(retention.Options, queuebox.RetentionStore, prometheus.Registerer, *slog.Logger) (*retention.Job, error), opts retention.Options) []string {
		store := &dropLog{}
		job, err := build(opts, store, prometheus.NewRegistry(), quiet())
		require.NoError(t, err)
		require.True(t, job.RunOnce(context.Background()))
		return store.calls
	}
	require.Equal(t, []string{"outbox drop 1h0m0s", "outbox age 1h0m0s batch 1000"},
		run(retention.Outbox, retention.Options{Policy: retention.PolicyAge, MaxAge: time.Hour}))
	require.Equal(t, []string{"inbox drop 1m0s", "inbox age 1m0s batch 1000"},
		run(retention.Inbox, retention.Options{Policy: retention.PolicyAge, MaxAge: time.Minute}))
	require.Equal(t, []string{"outbox sent keep 3 batch 1000", "outbox dead keep 3 batch 1000"},
		run(retention.Outbox, retention.Options{Policy: retention.PolicyCount, KeepCount: 3}), "COUNT keeps today's behaviour")
}
