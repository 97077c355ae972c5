package brokertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func testSourceStores(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	for i := range 3 {
		b.Publish(t, SourceBody(fmt.Sprint("m-", i), WantStore), nil)
	}
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, 3)
	stop()
	requireRemaining(t, b, 0, "every stored message was acknowledged")
	for i := range 3 {
		row := recv.Inbox.Row(t, fmt.Sprint("m-", i))
		require.Equal(t, recv.Name(), row.Source)
		require.Equal(t, queuebox.State(""), row.State, "a pending row")
	}
	require.Len(t, recv.Inbox.Rows(), 3)
}

func testSourceAckAfterCommit(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	recv.Inbox.SetFail(func(ctx context.Context, _ int, _ queuebox.ReceivedRow) error {
		<-ctx.Done() // the commit never comes; the drain ends the store
		return ctx.Err()
	})
	b.Publish(t, SourceBody("m-1", WantStore), nil)
	stop := startSource(t, b, recv, 50*time.Millisecond)
	recv.Inbox.WaitInserts(t, 1)
	stop()
	requireRemaining(t, b, 1, "a message whose row never committed is not acknowledged")
	require.Empty(t, recv.Inbox.Rows())

	recv.Inbox.SetFail(nil)
	stop = startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, 1)
	stop()
	requireRemaining(t, b, 0, "the next consumer stored and acknowledged it")
	require.Len(t, recv.Inbox.Rows(), 1)
}

func testSourceDuplicate(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	b.Publish(t, SourceBody("m-1", WantStore), nil)
	b.Publish(t, SourceBody("m-1", WantStore), nil)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitInserts(t, 2)
	stop()
	requireRemaining(t, b, 0, "the duplicate was acknowledged")
	require.Len(t, recv.Inbox.Rows(), 1)
	require.Equal(t, 2, recv.Received("m-1"), "each message once, the duplicate not again")
}

func testSourceRedeliver(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	recv.Inbox.SetFail(ingesttest.FailFirst(1))
	b.Publish(t, SourceBody("m-1", WantStore), nil)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, 1)
	stop()
	requireRemaining(t, b, 0, "the redelivery was stored and acknowledged")
	require.Equal(t, 2, recv.Inbox.Inserts(), "one failed insert, one that stored")
	require.Len(t, recv.Inbox.Rows(), 1)
}

func testSourceDatabaseDown(t *testing.T, b SourceBroker) {
	const n, failures = 3, 5
	recv := NewSourceReceiver()
	recv.Inbox.SetFail(ingesttest.FailFirst(failures))
	for i := range n {
		b.Publish(t, SourceBody(fmt.Sprint("m-", i), WantStore), nil)
	}
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, n)
	stop()
	requireRemaining(t, b, 0, "every message was stored and acknowledged once the database was back")
	require.GreaterOrEqual(t, recv.Inbox.Inserts(), n+failures)
	for i := range n {
		require.Equal(t, recv.Name(), recv.Inbox.Row(t, fmt.Sprint("m-", i)).Source)
	}
	require.Len(t, recv.Inbox.Rows(), n, "each row exactly once")
}

// rejectThenStore publishes a message to reject and one to store, and
// stops the consumer once it stored the second.
func rejectThenStore(t *testing.T, b SourceBroker) *SourceReceiver {
	recv := NewSourceReceiver()
	b.Publish(t, SourceBody("r-1", WantReject), nil)
	b.Publish(t, SourceBody("m-1", WantStore), nil)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, 1)
	stop()
	return recv
}

func testSourceRejected(t *testing.T, b SourceBroker) {
	recv := rejectThenStore(t, b)
	requireRemaining(t, b, 0, "the rejected message is settled, not requeued")
	require.Equal(t, 1, recv.Received("r-1"), "the rejected message was not redelivered")
	require.Len(t, recv.Inbox.Rows(), 1)
	require.Equal(t, "m-1", recv.Inbox.Rows()[0].IdempotencyKey)
}

func testSourceTerminated(t *testing.T, b SourceBroker) {
	rejectThenStore(t, b)
	require.Eventually(t, func() bool { return b.Terminated(t) == 1 }, time.Minute, 10*time.Millisecond,
		"the rejected message was terminated, not acknowledged")
}

func testSourceDead(t *testing.T, b SourceBroker) {
	recv := NewSourceReceiver()
	b.Publish(t, SourceBody("d-1", WantDead), nil)
	stop := startSource(t, b, recv, sourceDrain)
	recv.Inbox.WaitRows(t, 1)
	stop()
	requireRemaining(t, b, 0, "the dead message was acknowledged after its row")
	require.Equal(t, queuebox.StateDead, recv.Inbox.Row(t, "d-1").State)
	require.Equal(t, 1, recv.Received("d-1"))
}
