package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// componentError returns the status and error of one readiness component.
func componentError(t *testing.T, p *process, name string) (int, string, string) {
	t.Helper()
	code, body := get(t, p.url("/health/ready"))
	var r struct {
		Components map[string]struct{ Status, Error string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &r), body)
	c := r.Components[name]
	return code, c.Status, c.Error
}

// TestBrokerSourceThatCannotStartStopsOnlyItself: a RabbitMQ source whose
// queue is missing and a NATS source whose stream is missing, beside an
// HTTP source, in the built queuebox: the process keeps running, each
// broker component is down with the reason (so readiness is 503), the
// HTTP source answers, the log names the queue and the stream with the
// setting that concerns them, and each source starts once its queue or
// stream exists.
func TestBrokerSourceThatCannotStartStopsOnlyItself(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	r := newRabbit(t)
	queue := rabbitName("late")
	stream := natsStream{name: "QBTEST_LATE_" + natstest.Suffix()}
	env := natsSourceEnv(stripeEnv(configEnv(t, db, rabbitSourceYAML(queue, rabbitURL()))), natstest.URL(), stream)
	p := startServing(t, "queuebox", with(env, "QUEUEBOX_ROLES", "ingest"))

	require.Eventually(t, func() bool {
		code, rabbit, rabbitErr := componentError(t, p, "rabbitmq.orders-queue")
		_, nats, natsErr := componentError(t, p, "nats.jet")
		return code == http.StatusServiceUnavailable && rabbit == "down" && nats == "down" &&
			strings.Contains(rabbitErr, queue) && strings.Contains(natsErr, stream.name)
	}, 60*time.Second, 50*time.Millisecond, "both broker sources down with their reason")
	_, _, rabbitErr := componentError(t, p, "rabbitmq.orders-queue")
	require.Contains(t, rabbitErr, "sources.orders-queue.declareQueue")
	code, body, _ := post(t, p.url("/inbox/stripe"), `{"id":"evt_1","type":"a"}`)
	require.Equal(t, http.StatusAccepted, code, "the HTTP source keeps answering: %s", body)
	require.Eventually(t, func() bool {
		out := p.out.String()
		return strings.Contains(out, "sources.orders-queue.declareQueue") && strings.Contains(out, queue) &&
			strings.Contains(out, "sources.jet.stream") && strings.Contains(out, stream.name)
	}, 30*time.Second, 50*time.Millisecond, "the log names the queue, the stream and their settings")

	r.queue(queue, "", "")
	_, js := natstest.Connect(t, natstest.URL())
	stream.prefix = "qbtest." + strings.ToLower(natstest.Suffix())
	natstest.StreamOn(t, js, stream.name, stream.prefix+".>")
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	r.publish(queue, amqp.Publishing{Body: []byte(`{"messageId":"m-1","orderId":"o-1","type":"created"}`)})
	require.Eventually(t, func() bool { rows, _ := inboxCount(t, db, "orders-queue"); return rows == 1 },
		60*time.Second, 50*time.Millisecond, "the source consumes once its queue exists")
	select {
	case <-p.done:
		t.Fatalf("the process exited: %v", p.err)
	default:
	}
}
