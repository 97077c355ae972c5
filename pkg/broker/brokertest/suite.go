package brokertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

const (
	// faultTimeout is the publisher timeout of the cases that stall the
	// destination: short, so that they end quickly.
	faultTimeout = 250 * time.Millisecond
	// longTimeout is the publisher timeout of every other case; it never
	// fires in a passing run.
	longTimeout = time.Minute
	// slack is the generous bound on anything that must return "promptly";
	// only a hang exceeds it.
	slack = 10 * time.Second
)

// Exercise runs the publisher contract against the destinations of f.
// Every queuebox.Publisher passes it:
//
//   - Publish returns nil only after the destination accepted the message,
//     so the destination already holds it when Publish returns. It holds
//     the delivery body byte for byte, once, with the row's id, topic,
//     attempt and headers visible.
//   - Publish returns an error that wraps context.Canceled, promptly, when
//     ctx is cancelled before or during the publish.
//   - Publish returns an error when the destination refuses the connection,
//     refuses the message, or never answers; in the last case within the
//     publisher's own timeout (plus scheduling slack). After such a
//     failure the same publisher delivers again once the destination is
//     healthy.
//   - Close returns nil and is idempotent. Publish after Close returns an
//     error and sends nothing. Close does not hang, not even while a
//     publish is in flight to a stalled destination.
//   - Publish is safe for concurrent use, also concurrently with Close.
//
// Cases run as parallel subtests, each on a fresh destination; run the
// suite with -race. Bounds on time are generous: they catch a hang, not a
// slow machine.
func Exercise(t *testing.T, f Factory) {
	t.Helper()
	require.NotNil(t, f.New, "Factory.New")
	lim := f.Limits
	if (lim.NoStall || lim.NoReject || lim.NoUnreachable) && lim.Why == "" {
		t.Fatal("brokertest: Factory.Limits skips cases but gives no Why")
	}
	if f.Unreachable == nil && !lim.NoUnreachable {
		t.Fatal("brokertest: Factory.Unreachable is nil; set Limits.NoUnreachable to skip its case")
	}
	cases := []struct {
		name string
		skip bool
		flag string
		run  func(*testing.T, Factory)
	}{
		{"Delivered", false, "", testDelivered},
		{"EachPublishOnce", false, "", testEachPublishOnce},
		{"CanceledBeforePublish", false, "", testCanceledBefore},
		{"CanceledWhilePublishing", lim.NoStall, "NoStall", testCanceledWhile},
		{"TimeoutWhenStalled", lim.NoStall, "NoStall", testTimeout},
		{"Rejected", lim.NoReject, "NoReject", testRejected},
		{"ConnectionRefused", lim.NoUnreachable, "NoUnreachable", testUnreachable},
		{"PublishAfterClose", false, "", testPublishAfterClose},
		{"CloseWhilePublishing", lim.NoStall, "NoStall", testCloseWhilePublishing},
		{"ConcurrentPublish", false, "", testConcurrentPublish},
		{"ConcurrentClose", false, "", testConcurrentClose},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.skip {
				t.Skipf("Limits.%s: %s", c.flag, lim.Why)
			}
			t.Parallel()
			c.run(t, f)
		})
	}
}

// open builds a publisher and its destination and closes the publisher
// after the test.
func open(t *testing.T, f Factory, timeout time.Duration) (queuebox.Publisher, Destination) {
	t.Helper()
	p, d := f.New(t, Config{Timeout: timeout})
	require.NotNil(t, p, "Factory.New returned no publisher")
	require.NotNil(t, d, "Factory.New returned no destination")
	t.Cleanup(func() { _ = p.Close() })
	return p, d
}

// delivery returns a delivery of a new row; n tells rows of one case
// apart in their body and attempt.
func delivery(t *testing.T, n int) queuebox.Delivery {
	id := uuid.Must(uuid.NewV7()).String()
	body := fmt.Appendf(nil, `{"case":%q,"n":%d,"id":%q}`, t.Name(), n, id)
	return queuebox.Delivery{
		Message: &queuebox.OutboxMessage{
			ID: id, Topic: "brokertest.published", Key: fmt.Sprintf("key-%d", n), HasKey: true,
			Payload: body, Headers: map[string]string{"x-brokertest-row": id},
			Attempt: n % 4, MaxAttempts: 10, CreatedAt: time.Now(), Sequence: int64(n + 1),
		},
		Body: body,
	}
}

// publishAsync runs one Publish on its own goroutine and returns its
// result channel.
func publishAsync(ctx context.Context, p queuebox.Publisher, d queuebox.Delivery) <-chan error {
	done := make(chan error, 1)
	go func() { done <- p.Publish(ctx, d) }()
	return done
}

// await returns the result of a call started with publishAsync, or fails
// the test when it takes longer than within.
func await(t *testing.T, done <-chan error, within time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("%s did not return within %s", what, within)
		return nil
	}
}

// requireDelivered checks that got holds d exactly once, as the contract
// says it must look.
func requireDelivered(t *testing.T, got []Message, d queuebox.Delivery) {
	t.Helper()
	var found []Message
	for _, m := range got {
		if m.ID == d.Message.ID {
			found = append(found, m)
		}
	}
	require.Len(t, found, 1, "message %s once at the destination", d.Message.ID)
	m := found[0]
	require.Equal(t, string(d.Body), string(m.Body), "body")
	require.Equal(t, d.Message.Topic, m.Topic, "topic")
	require.Equal(t, d.Message.Attempt, m.Attempt, "attempt")
	require.Equal(t, []string{d.Message.ID}, m.Header("x-brokertest-row"), "row header")
}

// waitArrival waits until the destination has seen n publishes.
func waitArrival(t *testing.T, d Destination, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return d.Arrivals(t) >= n }, slack, 5*time.Millisecond,
		"%d publishes to reach the destination", n)
}
