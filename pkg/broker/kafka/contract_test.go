package kafka_test

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// TestPublisherContract runs the suite every publisher passes, each case
// against a kfake cluster of its own.
func TestPublisherContract(t *testing.T) {
	t.Parallel()
	brokertest.Exercise(t, brokertest.Factory{
		New: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, brokertest.Destination) {
			dest := newTopicDestination(t)
			p, err := kafkab.New(kafkab.Options{Name: "contract", Conn: kafkab.Conn{BootstrapServers: dest.addr},
				Topic: dest.topic, Timeout: cfg.Timeout})
			require.NoError(t, err)
			dest.warmUp(t, p)
			return p, dest
		},
		Unreachable: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, error) {
			addr := brokertest.UnreachableURL(t)[len("http://"):]
			return kafkab.New(kafkab.Options{Name: "contract", Conn: kafkab.Conn{BootstrapServers: addr},
				Topic: "qbtest.unreachable", Timeout: cfg.Timeout})
		},
	})
}

// topicDestination is a topic of a kfake cluster as a
// brokertest.Destination. Reject fails every produce request with
// INVALID_RECORD, a permanent error; Stall holds every produce request
// unanswered until the fault changes.
type topicDestination struct {
	cluster *kfake.Cluster
	addr    string
	topic   string

	mu      sync.Mutex
	fault   brokertest.Fault
	unstall chan struct{}
	reject  *kfake.FaultHandle
	stalled atomic.Int64
}

func newTopicDestination(t *testing.T) *topicDestination {
	c, addr := kafkatest.Cluster(t)
	d := &topicDestination{cluster: c, addr: addr, topic: kafkatest.Topic(t, c, 1), unstall: make(chan struct{})}
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		d.mu.Lock()
		fault, unstall := d.fault, d.unstall
		d.mu.Unlock()
		if fault == brokertest.Stall {
			d.stalled.Add(1)
			c.SleepControl(func() { <-unstall })
		}
		return nil, nil, false
	})
	t.Cleanup(func() { d.SetFault(t, brokertest.Healthy) })
	return d
}

// warmUpHeader marks the record that warmUp sends; Received and Arrivals
// leave it out.
const warmUpHeader = "x-contract-warm-up"

// warmUp publishes one record until the destination takes it, so that the
// producer has its producer id, its connection and the topic's metadata
// before a case starts: the fault cases give a publish 250 ms, and on a
// loaded machine the first publish of a new producer can take longer.
func (d *topicDestination) warmUp(t *testing.T, p queuebox.Publisher) {
	deadline := time.Now().Add(30 * time.Second)
	msg := &queuebox.OutboxMessage{ID: "warm-up", Topic: "warm-up", Headers: map[string]string{warmUpHeader: "1"}}
	for {
		err := p.Publish(t.Context(), queuebox.Delivery{Message: msg, Body: []byte(`{}`)})
		if err == nil {
			return
		}
		require.True(t, time.Now().Before(deadline), "warm-up publish: %v", err)
	}
}

func (d *topicDestination) records(t *testing.T) []*kgo.Record {
	var out []*kgo.Record
	for _, r := range kafkatest.Records(t, d.addr, d.topic) {
		if kafkatest.Header(r, warmUpHeader) == nil {
			out = append(out, r)
		}
	}
	return out
}

func (d *topicDestination) Received(t *testing.T) []brokertest.Message {
	var out []brokertest.Message
	for _, r := range d.records(t) {
		attempt, err := strconv.Atoi(one(t, kafkatest.Header(r, kafkab.HeaderAttempt)))
		require.NoError(t, err)
		headers := map[string][]string{}
		for _, h := range r.Headers {
			headers[h.Key] = append(headers[h.Key], string(h.Value))
		}
		out = append(out, brokertest.Message{ID: one(t, kafkatest.Header(r, kafkab.HeaderMessageID)),
			Topic: one(t, kafkatest.Header(r, kafkab.HeaderTopic)), Attempt: attempt, Body: r.Value, Headers: headers})
	}
	return out
}

func one(t *testing.T, values []string) string {
	require.Len(t, values, 1)
	return values[0]
}

func (d *topicDestination) Arrivals(t *testing.T) int {
	return len(d.records(t)) + int(d.stalled.Load())
}

func (d *topicDestination) SetFault(t *testing.T, f brokertest.Fault) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fault == brokertest.Stall {
		close(d.unstall)
		d.unstall = make(chan struct{})
	}
	if d.reject != nil {
		d.reject.Remove()
		d.reject = nil
	}
	if f == brokertest.Reject {
		d.reject = d.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.InvalidRecord, Count: -1})
	}
	d.fault = f
}
