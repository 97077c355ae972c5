package ingest_test

import (
	"context"
	"strings"
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
	require.Equal(t, []int{3}, env.mem.Batches(), "the group's rows go in one batch")
	require.Less(t, rows[0].ID, rows[1].ID, "time-ordered ids follow the group's order")
}

// TestReceiveBatchDecidesARefusedMessageAlone: in dead-letter mode, a
// message the database refuses is stored dead on its own (its body as
// text), a body that is no JSON is stored dead in the group, and their
// neighbours are stored in the group's order.
func TestReceiveBatchDecidesARefusedMessageAlone(t *testing.T) {
	mem := &memStore{Refuse: func(row queuebox.ReceivedRow) error {
		if strings.Contains(string(row.Payload), "1e999") && !strings.HasPrefix(string(row.Payload), `{"raw"`) {
			return &queuebox.RefusedValueError{Reason: "value out of range"}
		}
		return nil
	}}
	env := newReceiver(t, source("orders"), ingest.Transport{DeadLetter: true, BrokerAttributes: true}, mem)
	msgs := []ingest.Message{
		{Body: []byte(`{"id":"a","type":"t","customer":"c1"}`)},
		{Body: []byte(`{"id":"b","type":"t","customer":"c1","n":1e999}`)},
		{Body: []byte(`not json`)},
		{Body: []byte(`{"id":"c","type":"t","customer":"c1"}`)},
	}
	ds, err := env.r.ReceiveBatch(context.Background(), msgs)
	require.NoError(t, err)
	require.Equal(t, []ingest.Outcome{ingest.Stored, ingest.Dead, ingest.Dead, ingest.Stored},
		[]ingest.Outcome{ds[0].Outcome, ds[1].Outcome, ds[2].Outcome, ds[3].Outcome})
	require.Equal(t, []int{4}, mem.Batches(), "the group goes in one batch")
	require.Equal(t, 5, mem.Inserts(), "then the refused message's dead row alone")
	var keys []string
	for _, r := range mem.Rows() {
		keys = append(keys, r.IdempotencyKey)
	}
	require.Equal(t, "a", keys[0])
	require.Equal(t, "c", keys[2])
	require.Equal(t, "b", keys[3], "the refused message is stored dead after its group")
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
