package rabbitmq_test

import (
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
)

// TestSourceContract runs the suite every broker source passes, each case
// on a queue of its own whose rejected messages go to a dead-letter queue.
func TestSourceContract(t *testing.T) {
	t.Parallel()
	brokertest.ExerciseSource(t, brokertest.SourceFactory{
		New: func(t *testing.T) brokertest.SourceBroker { return newSourceQueue(t) },
	})
}

// sourceQueue is a queue as a brokertest.SourceBroker. A message that the
// consumer nacks without requeue goes to the dead-letter queue dlq, which
// Terminated counts.
type sourceQueue struct {
	a          *admin
	queue, dlq string
}

func newSourceQueue(t *testing.T) *sourceQueue {
	a := newAdmin(t)
	q := &sourceQueue{a: a, queue: name(t, "q"), dlq: name(t, "dlq")}
	a.queue(q.dlq, "", "")
	require.NoError(t, a.do(func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclare(q.queue, true, false, false, false,
			amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": q.dlq})
		return err
	}))
	t.Cleanup(func() {
		_ = a.do(func(ch *amqp.Channel) error { _, err := ch.QueueDelete(q.queue, false, false, false); return err })
	})
	return q
}

func (q *sourceQueue) Publish(_ *testing.T, body []byte, headers map[string]string) {
	t := amqp.Table{}
	for k, v := range headers {
		t[k] = v
	}
	q.a.publish(q.queue, amqp.Publishing{Body: body, Headers: t})
}

func (q *sourceQueue) Consumer(t *testing.T, cfg brokertest.SourceConfig) brokertest.SourceConsumer {
	c, err := rabbitmq.NewConsumer(rabbitmq.ConsumerOptions{URL: brokerURL(), Queue: q.queue, Receiver: cfg.Receiver,
		MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff, DrainTimeout: cfg.DrainTimeout})
	require.NoError(t, err)
	return c
}

// Remaining waits until the broker has dropped the stopped consumers (it
// requeues their unacknowledged messages as it does), then counts the
// ready messages.
func (q *sourceQueue) Remaining(t *testing.T) int {
	eventually(t, func() bool { return q.a.inspect(q.queue).Consumers == 0 }, "no consumer left on the queue")
	return q.a.inspect(q.queue).Messages
}

func (q *sourceQueue) Terminated(*testing.T) int { return q.a.count(q.dlq) }
