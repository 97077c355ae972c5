package ingest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// TestReceiveBatchDecidesEachInOrder stores a group with a new message,
// a repeat and one the filter drops, and checks one decision per message
// in the group's order, with the rows stored in that order.
func TestReceiveBatchDecidesEachInOrder(t *testing.T) {
	env := newReceiver(t, source("orders"), ingest.Transport{}, &memStore{})
	msgs := []ingest.Message{
		{Body: []byte(`{"id":"a","type":"t","customer":"c1"}`)},
		{Body: []byte(`{"id":"b","type":"t","customer":"c1"}`)},
		{Body: []byte(`{"id":"a","type":"t","customer":"c1"}`)},
	}
	ds, err := env.r.ReceiveBatch(context.Background(), msgs)
	require.NoError(t, err)
	require.Len(t, ds, 3)
	require.Equal(t, []ingest.Outcome{ingest.Stored, ingest.Stored, ingest.Duplicate},
		[]ingest.Outcome{ds[0].Outcome, ds[1].Outcome, ds[2].Outcome})
	rows := env.mem.Rows()
	require.Len(t, rows, 2)
	require.Equal(t, "a", rows[0].IdempotencyKey)
	require.Equal(t, "b", rows[1].IdempotencyKey)
}

// TestReceiveBatchStoreFailureFailsTheGroup: a store that fails decides
// nothing, and the repeat of the group finds the rows that committed.
func TestReceiveBatchStoreFailureFailsTheGroup(t *testing.T) {
	mem := &memStore{}
	env := newReceiver(t, source("orders"), ingest.Transport{}, mem)
	msgs := []ingest.Message{
		{Body: []byte(`{"id":"a","type":"t","customer":"c1"}`)},
		{Body: []byte(`{"id":"b","type":"t","customer":"c1"}`)},
	}
	mem.SetFail(func(context.Context, int, queuebox.ReceivedRow) error { return errDown })
	ds, err := env.r.ReceiveBatch(context.Background(), msgs)
	require.Error(t, err)
	require.Nil(t, ds)
	mem.SetFail(nil)
	ds, err = env.r.ReceiveBatch(context.Background(), msgs)
	require.NoError(t, err)
	require.Len(t, ds, 2)
	require.Len(t, mem.Rows(), 2)
}
