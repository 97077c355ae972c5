package source_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/source"
)

// decider answers each Receive with the next of its results.
type decider struct {
	results []result
	ctxs    []context.Context
}

type result struct {
	d   ingest.Decision
	err error
}

func (r *decider) Name() string { return "orders" }

func (r *decider) Receive(ctx context.Context, _ ingest.Message) (ingest.Decision, error) {
	r.ctxs = append(r.ctxs, ctx)
	next := r.results[0]
	r.results = r.results[1:]
	return next.d, next.err
}

// ReceiveBatch decides the group of one message that Handle stores with
// the next result.
func (r *decider) ReceiveBatch(ctx context.Context, msgs []ingest.Message) ([]ingest.Decision, error) {
	if len(msgs) != 1 {
		panic("Handle stores one message")
	}
	d, err := r.Receive(ctx, msgs[0])
	if err != nil {
		return nil, err
	}
	return []ingest.Decision{d}, nil
}

// answers records what the runner told the broker.
type answers struct{ got []string }

func (a *answers) Ack(d ingest.Decision)  { a.got = append(a.got, "ack "+d.Outcome.String()) }
func (a *answers) Term(d ingest.Decision) { a.got = append(a.got, "term "+d.Outcome.String()) }
func (a *answers) Nak(_ context.Context, retryIn time.Duration) {
	a.got = append(a.got, "nak "+retryIn.String())
}

func TestHandleMapsEachDecisionToOneAnswer(t *testing.T) {
	t.Parallel()
	down := errors.New("the database is down")
	recv := &decider{results: []result{
		{d: ingest.Decision{Outcome: ingest.Stored}}, {d: ingest.Decision{Outcome: ingest.Duplicate}},
		{d: ingest.Decision{Outcome: ingest.Filtered}}, {d: ingest.Decision{Outcome: ingest.Dead}},
		{d: ingest.Decision{Outcome: ingest.Rejected}},
		{err: down}, {err: down}, {err: down}, {err: down},
		{d: ingest.Decision{Outcome: ingest.Stored}}, {err: down},
	}}
	r, err := source.New(source.Options{Receiver: recv, MinBackoff: time.Second, MaxBackoff: 5 * time.Second})
	require.NoError(t, err)
	require.Equal(t, "orders", r.Name())
	a := &answers{}
	var results []source.Result
	for range 11 {
		results = append(results, r.Handle(t.Context(), ingest.Message{}, a))
	}
	require.Equal(t, []string{"ack stored", "ack duplicate", "ack filtered", "ack dead", "term rejected",
		"nak 1s", "nak 2s", "nak 4s", "nak 5s", "ack stored", "nak 1s"}, a.got,
		"a failed store backs off, doubling, until a store succeeds")
	require.Equal(t, source.Result{Settled: true}, results[4])
	require.Equal(t, source.Result{RetryIn: 2 * time.Second}, results[6])
}

func TestNewRequiresAReceiver(t *testing.T) {
	t.Parallel()
	_, err := source.New(source.Options{})
	require.ErrorContains(t, err, "Receiver is required")
}

// blocker holds each Receive until its context ends.
type blocker struct{ entered chan struct{} }

func (b *blocker) Name() string { return "orders" }

func (b *blocker) Receive(ctx context.Context, _ ingest.Message) (ingest.Decision, error) {
	close(b.entered)
	<-ctx.Done()
	return ingest.Decision{}, ctx.Err()
}

func (b *blocker) ReceiveBatch(ctx context.Context, msgs []ingest.Message) ([]ingest.Decision, error) {
	_, err := b.Receive(ctx, msgs[0])
	return nil, err
}

func TestTheMessageInHandOutlivesTheShutdownByTheDrainTimeout(t *testing.T) {
	t.Parallel()
	recv := &blocker{entered: make(chan struct{})}
	r, err := source.New(source.Options{Receiver: recv, DrainTimeout: 50 * time.Millisecond, MinBackoff: time.Hour})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan source.Result, 1)
	a := &answers{}
	go func() { done <- r.Handle(ctx, ingest.Message{}, a) }()
	<-recv.entered
	select {
	case <-done:
		t.Fatal("the store ended while the consumer still ran")
	default:
	}
	cancel()
	select {
	case res := <-done:
		require.False(t, res.Settled)
		require.Equal(t, []string{"nak 1h0m0s"}, a.got, "the store failed with the drain's end")
	case <-time.After(30 * time.Second):
		t.Fatal("the drain did not end the store")
	}
}

func TestStoreTimeoutBoundsAStoreWhileRunning(t *testing.T) {
	t.Parallel()
	recv := &blocker{entered: make(chan struct{})}
	r, err := source.New(source.Options{Receiver: recv, StoreTimeout: 20 * time.Millisecond})
	require.NoError(t, err)
	a := &answers{}
	res := r.Handle(t.Context(), ingest.Message{}, a)
	require.False(t, res.Settled)
	require.Len(t, a.got, 1)
}
