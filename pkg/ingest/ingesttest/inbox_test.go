package ingesttest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestInboxKeepsTheFirstRowOfAKey(t *testing.T) {
	t.Parallel()
	var in ingesttest.Inbox
	ctx := t.Context()
	id, ok, err := in.Insert(ctx, queuebox.ReceivedRow{ID: "1", Source: "a", IdempotencyKey: "k"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1", id)
	id, ok, err = in.Insert(ctx, queuebox.ReceivedRow{ID: "2", Source: "a", IdempotencyKey: "k"})
	require.NoError(t, err)
	require.False(t, ok, "a duplicate")
	require.Empty(t, id)
	_, ok, err = in.Insert(ctx, queuebox.ReceivedRow{ID: "3", Source: "b", IdempotencyKey: "k"})
	require.NoError(t, err)
	require.True(t, ok, "the key of another source")
	require.Len(t, in.Rows(), 2)
	require.Equal(t, 3, in.Inserts())
	require.Equal(t, "1", in.Row(t, "k").ID)
}

func TestInboxFailsOnDemand(t *testing.T) {
	t.Parallel()
	var in ingesttest.Inbox
	in.SetFail(ingesttest.FailFirst(2))
	for range 2 {
		_, _, err := in.Insert(t.Context(), queuebox.ReceivedRow{IdempotencyKey: "k"})
		require.ErrorIs(t, err, ingesttest.ErrDown)
	}
	_, ok, err := in.Insert(t.Context(), queuebox.ReceivedRow{IdempotencyKey: "k"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 3, in.Inserts())
}

func TestInboxWaitWakesOnInsert(t *testing.T) {
	t.Parallel()
	var in ingesttest.Inbox
	entered := make(chan struct{})
	in.SetFail(func(ctx context.Context, n int, _ queuebox.ReceivedRow) error {
		if n == 1 {
			close(entered)
		}
		return nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 5 {
			_, _, _ = in.Insert(context.Background(), queuebox.ReceivedRow{IdempotencyKey: string(rune('a' + i))})
		}
	}()
	<-entered
	rows := in.WaitRows(t, 5)
	require.Len(t, rows, 5)
	in.WaitInserts(t, 5)
	<-done
}

func TestInboxWaitInsertsWakesWhileTheInsertIsHeld(t *testing.T) {
	t.Parallel()
	var in ingesttest.Inbox
	release := make(chan struct{})
	in.SetFail(func(context.Context, int, queuebox.ReceivedRow) error {
		<-release
		return nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = in.Insert(context.Background(), queuebox.ReceivedRow{IdempotencyKey: "k"})
	}()
	in.WaitInserts(t, 1)
	require.Empty(t, in.Rows(), "held before the row")
	close(release)
	in.WaitRows(t, 1)
	<-done
}
