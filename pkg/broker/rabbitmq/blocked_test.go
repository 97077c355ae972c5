package rabbitmq_test

import (
	"errors"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/failure"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// While the broker blocks the connection (connection.blocked), a publish
// sends nothing and fails with a refusal that asks to be deferred, not
// counted as an attempt; once the broker lifts the block, publishes go
// through again on the same connection. The block comes from a channel
// the test feeds in place of the client's listener: raising a real one
// means setting the shared broker's memory alarm, which no test may do.
func TestABlockedConnectionSendsNothingUntilTheBlockLifts(t *testing.T) {
	t.Parallel()
	a := newAdmin(t)
	exchange, queue := name(t, "x"), name(t, "q")
	p := newPublisher(t, rabbitmq.Options{Name: "events", Exchange: exchange})
	blocks := make(chan amqp.Blocking)
	// The client closes its listener with the connection; this one is the
	// test's to close, before the publisher's Close waits for its reader.
	t.Cleanup(func() { close(blocks) })
	dials := 0
	rabbitmq.ListenToBlocks(p, func() <-chan amqp.Blocking { dials++; return blocks })
	require.NoError(t, p.Connect(t.Context()))
	a.queue(queue, exchange, "order.*")
	publish := func(n string) error {
		return p.Publish(t.Context(), queuebox.Delivery{Message: row("order.created" + n), Body: []byte(`{}`)})
	}
	require.NoError(t, publish("1"))

	blocks <- amqp.Blocking{Active: true, Reason: "low on memory"}
	// The watcher may take the block a moment after the send returned: a
	// publish in that moment still goes through.
	sent := 1
	var err error
	eventually(t, func() bool {
		if err = publish("2"); err == nil {
			sent++
		}
		return err != nil
	}, "a publish fails once the block is seen")
	require.ErrorIs(t, err, failure.ErrBlocked)
	require.ErrorIs(t, err, failure.ErrRefused)
	var ns queuebox.NotSent
	require.True(t, errors.As(err, &ns) && ns.Unsent(), "the row is deferred, not attempted")
	var pause queuebox.PauseRequest
	require.True(t, errors.As(err, &pause))
	require.Contains(t, err.Error(), "low on memory")
	require.Len(t, a.drain(queue), sent, "the refused publish sent nothing")

	blocks <- amqp.Blocking{Active: false}
	eventually(t, func() bool { return publish("3") == nil }, "publishes go through once the block lifts")
	require.Len(t, a.drain(queue), 1)
	require.Equal(t, 1, dials, "the block never cost the connection")
}
