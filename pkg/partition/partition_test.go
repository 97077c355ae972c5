package partition_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/partition"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fakeStore answers each maintenance with the next of its results.
type fakeStore struct {
	mu      sync.Mutex
	errs    []error
	calls   int
	tables  []queuebox.Table
	created chan struct{}
}

func (f *fakeStore) PartitionsMaintain(_ context.Context, table queuebox.Table) ([]string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tables = append(f.tables, table)
	var err error
	if f.calls < len(f.errs) {
		err = f.errs[f.calls]
	}
	f.calls++
	if f.created != nil && err == nil {
		select {
		case f.created <- struct{}{}:
		default:
		}
	}
	return []string{"outbox_p20250101_0000"}, err == nil, err
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRunOnceReportsAFailureInTheHealthCheck(t *testing.T) {
	t.Parallel()
	store := &fakeStore{errs: []error{errors.New("lock timeout"), nil}}
	job := partition.New(queuebox.TableOutbox, store, 24*time.Hour, quiet())
	require.Equal(t, "partitions-outbox", job.Name())
	ctx := context.Background()
	require.False(t, job.RunOnce(ctx))
	require.ErrorContains(t, job.Check(ctx), "the last maintenance of the outbox partitions failed")
	require.True(t, job.RunOnce(ctx))
	require.NoError(t, job.Check(ctx))
	require.Equal(t, []queuebox.Table{queuebox.TableOutbox, queuebox.TableOutbox}, store.tables)
}

func TestRunMaintainsAtOnceAndStopsWithItsContext(t *testing.T) {
	t.Parallel()
	store := &fakeStore{created: make(chan struct{}, 1)}
	job := partition.New(queuebox.TableInbox, store, time.Hour, quiet())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- job.Run(ctx) }()
	<-store.created
	cancel()
	require.NoError(t, <-done)
}
