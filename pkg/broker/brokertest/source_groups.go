package brokertest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// groupSize is how many messages the group cases publish before the
// consumer starts, so that its first fetch finds them all: more than a
// RabbitMQ prefetch window of the default 10.
const groupSize = 24

// publishKeys publishes n messages to store, with the keys g-00, g-01, …,
// and returns the keys in publish order.
func publishKeys(t *testing.T, b SourceBroker, n int) []string {
	keys := make([]string, n)
	for i := range n {
		keys[i] = fmt.Sprintf("g-%02d", i)
		b.Publish(t, SourceBody(keys[i], WantStore), nil)
	}
	return keys
}

func rowKeys(rows []queuebox.ReceivedRow) []string {
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.IdempotencyKey
	}
	return keys
}

// The messages of the queue enter the inbox in queue order, through
// groups that each hold a run of the queue, in order.
func testSourceGroupOrder(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	keys := publishKeys(t, b, groupSize)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, groupSize)
	stop()
	requireRemaining(t, b, 0, "every stored message was acknowledged")
	require.Equal(t, keys, rowKeys(recv.Inbox.Rows()), "the rows are in queue order")
	groups := recv.Groups()
	require.Equal(t, keys, slices.Concat(groups...), "every message went through ReceiveBatch once, in order")
	sizes := make([]int, len(groups))
	for i, g := range groups {
		sizes[i] = len(g)
	}
	t.Logf("group sizes: %v", sizes)
}

// A store that fails in the middle of a group gives the whole group
// back; the redelivery stores the rest, finds the rows stored before the
// failure duplicates, and the inbox holds one row per key.
func testSourceGroupFailure(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	const failAt = 3
	recv.Inbox.SetFail(func(_ context.Context, n int, _ queuebox.ReceivedRow) error {
		if n == failAt {
			return ingesttest.ErrDown
		}
		return nil
	})
	keys := publishKeys(t, b, groupSize)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, groupSize)
	stop()
	requireRemaining(t, b, 0, "the redelivered group was stored and acknowledged")
	rows := recv.Inbox.Rows()
	require.ElementsMatch(t, keys, rowKeys(rows), "one row per key")
	require.Greater(t, recv.Inbox.Inserts(), groupSize, "the failed insert and the repeats of the group")
	failed := keys[failAt-1]
	require.GreaterOrEqual(t, recv.Received(failed), 2, "the message whose insert failed came again")
}

// A message that cannot be stored as it came is decided alone: one that
// is no JSON is stored dead, one whose rows the database refuses is
// rejected, and the messages around them are stored at the first try.
func testSourcePoisonInGroup(t *testing.T, b SourceBroker) {
	recv, inbox := realReceiver(t)
	asPostgres := inbox.Refuse
	inbox.Refuse = func(row queuebox.ReceivedRow) error {
		if row.IdempotencyKey == "poison" {
			return &queuebox.RefusedValueError{Reason: "refused by the contract"}
		}
		return asPostgres(row)
	}
	bodies := []string{`{"id":"p-0"}`, `not json`, `{"id":"p-2"}`, `{"id":"poison"}`, `{"id":"p-4"}`}
	for _, body := range bodies {
		b.Publish(t, []byte(body), nil)
	}
	stop := startSource(t, b, recv, sourceDrain)
	// The refused message tries its row and then its dead row.
	const inserts = 6
	inbox.WaitInserts(t, inserts)
	inbox.WaitRows(t, 4)
	stop()
	requireRemaining(t, b, 0, "every message was settled at the first try")
	require.Equal(t, inserts, inbox.Inserts(), "no group came again")
	rows := inbox.Rows()
	require.Len(t, rows, 4)
	for _, key := range []string{"p-0", "p-2", "p-4"} {
		require.Equal(t, queuebox.State(""), inbox.Row(t, key).State, "a neighbour is stored pending")
	}
	require.Equal(t, queuebox.StateDead, rows[1].State, "the body that is no JSON is stored dead, in its place")
}

// A stop while a group is being stored lets the group finish within the
// drain and be acknowledged; the messages after it stay with the broker,
// and the next consumer stores them: each key once, none lost.
func testSourceStopMidGroup(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	entered, release := make(chan struct{}), make(chan struct{})
	recv.Inbox.SetFail(func(ctx context.Context, n int, _ queuebox.ReceivedRow) error {
		if n != 2 {
			return nil
		}
		close(entered)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	keys := publishKeys(t, b, groupSize)
	cancel, wait := runSource(t, b, recv, sourceDrain)
	<-entered
	cancel()
	close(release)
	wait()
	stored := len(recv.Inbox.Rows())
	require.GreaterOrEqual(t, stored, 2, "the group in hand finished after the stop")
	requireRemaining(t, b, groupSize-stored, "what was stored was acknowledged, the rest stayed with the broker")

	recv.Inbox.SetFail(nil)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, groupSize)
	stop()
	requireRemaining(t, b, 0, "the next consumer stored the rest")
	require.Equal(t, keys, rowKeys(recv.Inbox.Rows()), "each key once, in queue order")
}
