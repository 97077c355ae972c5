package brokertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/source"
)

// SourceFactory builds the brokers of one source transport for
// ExerciseSource. Each case calls New itself, so every case gets a fresh
// queue, stream or topic, and cases run in parallel.
type SourceFactory struct {
	// New creates a queue, stream or topic (with what a consumer of it
	// needs: a durable name, a group) that lives until t ends. Required.
	New func(t *testing.T) SourceBroker
	// Limits skips the cases that the transport cannot produce.
	Limits SourceLimits
}

// SourceLimits lists what a source transport cannot show. The zero value
// runs every case. Each true field skips the cases that need it, with a
// t.Skip that names the field and Why.
type SourceLimits struct {
	// NoTerminate: the broker has no answer that drops one message (Kafka
	// commits the offset of a Rejected record like a stored one's), so
	// SourceBroker.Terminated cannot tell a termination from an
	// acknowledgement. Skips the case that counts terminations.
	NoTerminate bool
	// Why says why the fields above are set. ExerciseSource fails when a
	// field is set and Why is empty.
	Why string
}

// SourceConfig is what a case asks of the consumer that a SourceBroker
// builds.
type SourceConfig struct {
	// Receiver receives every message; its Name is the source name.
	Receiver source.Receiver
	// MinBackoff and MaxBackoff bound the consumer's backoff after a
	// failed store (and before a reconnect): short, so that cases end
	// quickly.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout bounds the store of the message in hand after the
	// consumer's context ended.
	DrainTimeout time.Duration
}

// SourceConsumer is a broker source as the suite runs it: the consumer
// of rabbitmq, nats or kafka.
type SourceConsumer interface {
	// Run consumes until ctx ends, then returns nil once the message in
	// hand was answered.
	Run(ctx context.Context) error
}

// SourceBroker is the queue, stream or topic of one case, as the harness
// sees it. The suite calls its methods from the test goroutine only.
type SourceBroker interface {
	// Publish sends one message with body and headers (nil: none) where
	// the consumers of Consumer read it, and returns once the broker holds
	// it. A header value may hold any bytes, a NUL and invalid UTF-8
	// included.
	Publish(t *testing.T, body []byte, headers map[string]string)
	// Consumer builds a consumer with cfg, not yet running. The suite runs
	// it, and cancels it before it builds the next.
	Consumer(t *testing.T, cfg SourceConfig) SourceConsumer
	// Remaining returns how many published messages the broker would
	// still deliver to the source: waiting, or delivered and not
	// acknowledged. The suite calls it only after every consumer stopped,
	// and waits for the count it wants, since a broker takes back the
	// unacknowledged messages of a closed connection in its own time.
	Remaining(t *testing.T) int
	// Terminated returns how many messages a consumer terminated: the
	// broker dropped or dead-lettered them on the consumer's answer.
	// Unused with Limits.NoTerminate.
	Terminated(t *testing.T) int
}

// What a SourceReceiver does with a message, by the "want" of its body.
const (
	WantStore  = "store"
	WantReject = "reject"
	WantDead   = "dead"
)

// SourceBody is the body of a message for a SourceReceiver: the
// idempotency key id, and want, one of WantStore, WantReject, WantDead.
func SourceBody(id, want string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"want":%q}`, id, want)
}

// SourceReceiver is the receive step that the source contract hands to a
// consumer, over an ingesttest.Inbox: it stores a WantStore body as a
// pending row and a WantDead one as a dead row (Stored or Dead, Duplicate
// for a key the inbox holds), decides Rejected for a WantReject body
// without a row, and fails when the inbox fails. A group is stored one
// message after another, so a failure can strike in its middle. It is
// safe for concurrent use.
type SourceReceiver struct {
	// Inbox holds the rows; set its failures to fail the stores.
	Inbox *ingesttest.Inbox
	name  string

	mu     sync.Mutex
	seen   map[string]int
	groups [][]string
}

var _ source.Receiver = (*SourceReceiver)(nil)

// NewSourceReceiver returns a receiver with an empty inbox and a source
// name of its own.
func NewSourceReceiver() *SourceReceiver {
	return &SourceReceiver{Inbox: &ingesttest.Inbox{}, name: "contract-" + uuid.NewString()[:8],
		seen: map[string]int{}}
}

// Name is the source name.
func (r *SourceReceiver) Name() string { return r.name }

// Received returns how many times a message with the key id reached
// Receive.
func (r *SourceReceiver) Received(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id]
}

// ReceiveBatch receives msgs one after another, as ingest.Receiver's
// ReceiveBatch contract allows, and fails the group at the first failed
// store: the rows stored before it stay, and the redelivered group finds
// them duplicates. It records the group's keys for Groups.
func (r *SourceReceiver) ReceiveBatch(ctx context.Context, msgs []ingest.Message) ([]ingest.Decision, error) {
	keys := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var body struct{ ID string }
		_ = json.Unmarshal(m.Body, &body) // Receive reports a body not of SourceBody
		keys = append(keys, body.ID)
	}
	r.mu.Lock()
	r.groups = append(r.groups, keys)
	r.mu.Unlock()
	ds := make([]ingest.Decision, 0, len(msgs))
	for _, m := range msgs {
		d, err := r.Receive(ctx, m)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// Groups returns the keys of each group that reached ReceiveBatch, in the
// order of the calls.
func (r *SourceReceiver) Groups() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.groups)
}

// Receive decides the message by the want of its body.
func (r *SourceReceiver) Receive(ctx context.Context, m ingest.Message) (ingest.Decision, error) {
	var body struct{ ID, Want string }
	if err := json.Unmarshal(m.Body, &body); err != nil {
		return ingest.Decision{}, fmt.Errorf("brokertest: a body not of SourceBody: %w", err)
	}
	r.mu.Lock()
	r.seen[body.ID]++
	r.mu.Unlock()
	if body.Want == WantReject {
		return ingest.Decision{Outcome: ingest.Rejected, Reason: "extraction_failed",
			Message: "rejected by the contract", Permanent: true}, nil
	}
	row := queuebox.ReceivedRow{ID: uuid.NewString(), Source: r.name, IdempotencyKey: body.ID,
		Payload: m.Body, Headers: m.Headers}
	outcome := ingest.Stored
	if body.Want == WantDead {
		lastError := "transform: refused by the contract"
		row.State, row.LastError, outcome = queuebox.StateDead, &lastError, ingest.Dead
	}
	id, inserted, err := r.Inbox.Insert(ctx, row)
	switch {
	case err != nil:
		return ingest.Decision{}, err
	case !inserted:
		return ingest.Decision{Outcome: ingest.Duplicate}, nil
	}
	return ingest.Decision{Outcome: outcome, ID: id}, nil
}
