package deliver_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/transform"
)

// answering is a publisher that answers as a destination would: it fills
// the delivery's receipt with receipt and returns err. While hold is open
// (not nil), every publish waits for it.
type answering struct {
	receipt queuebox.Receipt
	err     error
	hold    chan struct{}
}

func (p *answering) Publish(ctx context.Context, d queuebox.Delivery) error {
	if p.hold != nil {
		select {
		case <-p.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if d.Receipt != nil {
		*d.Receipt = p.receipt
	}
	return p.err
}

func (p *answering) Close() error { return nil }

// statusError is a failed publish that carries an HTTP status, as the
// HTTP destination's error does.
type statusError struct{ code int }

func (e statusError) Error() string       { return fmt.Sprintf("status %d", e.code) }
func (e statusError) HTTPStatusCode() int { return e.code }

// refusal is a broker's refusal for now: it asks for a pause.
type refusal struct{}

func (refusal) Error() string                         { return "stream full" }
func (refusal) Pause(time.Time) (time.Duration, bool) { return time.Second, true }

// runLedgerFake is runFake with a redactor that knows the secret
// "s3cr3t-value" and with the gate set flows.
func runLedgerFake(t *testing.T, fr fakeRoutes, store *memStore, pub queuebox.Publisher, flows *flow.Set) {
	t.Helper()
	router, err := deliver.NewRouter(fr.routes, fr.dests)
	require.NoError(t, err)
	transforms, err := deliver.NewTransforms(fr.routes, fr.dests, transform.JSONata)
	require.NoError(t, err)
	p, err := deliver.NewPoller(deliver.Options{Store: store, Router: router,
		Publishers: map[string]queuebox.Publisher{"api": pub}, Transforms: transforms,
		Redactor: redact.New("s3cr3t-value"), Metrics: deliver.NewMetrics(prometheus.NewRegistry()), Logger: quiet(),
		PollInterval: 10 * time.Millisecond, RetryBaseDelay: time.Second, Flow: flows})
	require.NoError(t, err)
	start(t, p)
}

// Each outcome carries the facts of its attempt for the delivery ledger:
// the row's attempt number, when the publish started and how long it
// took, the destination's status (its receipt, else the status its
// error carries), the class of the failure, and the answer: the body the
// destination returned or the failure's text, redacted and stripped as
// last_error is and cut to one KiB. A sent row keeps no answer; a row
// that no publish sent still records when its handling started.
func TestOutcomesCarryTheFactsOfTheAttempt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3000)
	cases := []struct {
		name    string
		row     queuebox.ClaimedMessage
		pub     *answering
		kind    queuebox.OutcomeKind
		status  string
		class   queuebox.AttemptClass
		answer  string // the exact answer; see check for the long one
		noStart bool   // no publish: the handling's start
	}{
		{name: "sent", row: claimed("a", "order.created", 2, 5), pub: &answering{receipt: queuebox.Receipt{Status: "200"}},
			kind: queuebox.OutcomeSent, status: "200"},
		{name: "answer body of a 503, redacted and stripped", row: claimed("b", "order.created", 1, 5),
			pub: &answering{receipt: queuebox.Receipt{Status: "503", Answer: "busy \x1b[31mnow\x1b[0m, key s3cr3t-value"},
				err: statusError{503}},
			kind: queuebox.OutcomeRetry, status: "503", class: queuebox.ClassHTTP5xx, answer: "busy [31mnow[0m, key ***"},
		{name: "a long body is cut to one KiB", row: claimed("c", "order.created", 0, 5),
			pub:  &answering{receipt: queuebox.Receipt{Status: "500", Answer: long}, err: statusError{500}},
			kind: queuebox.OutcomeRetry, status: "500", class: queuebox.ClassHTTP5xx, answer: long[:queuebox.MaxAnswerBytes]},
		{name: "status from the error without a receipt", row: claimed("d", "order.created", 5, 5),
			pub:  &answering{err: statusError{404}},
			kind: queuebox.OutcomeDead, status: "404", class: queuebox.ClassHTTP4xx, answer: "Publish to api failed: status 404"},
		{name: "timeout", row: claimed("e", "order.created", 0, 5),
			pub:  &answering{err: fmt.Errorf("no answer: %w", context.DeadlineExceeded)},
			kind: queuebox.OutcomeRetry, class: queuebox.ClassTimeout, answer: "Publish to api failed: no answer: context deadline exceeded"},
		{name: "no answer at all", row: claimed("f", "order.created", 0, 5), pub: &answering{err: statusError{0}},
			kind: queuebox.OutcomeRetry, class: queuebox.ClassConnect, answer: "Publish to api failed: status 0"},
		{name: "a broker's refusal", row: claimed("g", "order.created", 0, 5), pub: &answering{err: refusal{}},
			kind: queuebox.OutcomeRetry, class: queuebox.ClassRefused, answer: "Publish to api failed: stream full"},
		{name: "any other broker failure", row: claimed("h", "order.created", 0, 5), pub: &answering{err: errors.New("nack")},
			kind: queuebox.OutcomeRetry, class: queuebox.ClassPublish, answer: "Publish to api failed: nack"},
		{name: "undeliverable", row: claimed("i", "order.created", 0, 5), pub: &answering{err: queuebox.Undeliverable("bad header")},
			kind: queuebox.OutcomeDead, class: queuebox.ClassUndeliverable, answer: "Publish to api failed: bad header"},
		{name: "no route", row: claimed("j", "invoice.paid", 3, 5), pub: &answering{},
			kind: queuebox.OutcomeDead, class: queuebox.ClassNoRoute, answer: "No route matches topic invoice.paid", noStart: true},
		{name: "no publisher", row: claimed("k", "audit.login", 0, 5), pub: &answering{},
			kind: queuebox.OutcomeDead, class: queuebox.ClassNoRoute,
			answer: "Destination broker of type rabbitmq has no publisher in this build", noStart: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := newMemStore(tc.row)
			before := time.Now()
			runLedgerFake(t, newFakeRoutes(), store, tc.pub, nil)
			got := store.outcome(t, tc.row.ID)
			after := time.Now()
			require.Equal(t, tc.kind, got.Kind)
			a := got.Attempt
			require.Equal(t, tc.row.Attempt, a.Number, "the attempt the destination saw (X-Attempt)")
			require.Equal(t, tc.status, a.Status)
			require.Equal(t, tc.class, a.Class)
			require.Equal(t, tc.answer, a.Answer)
			require.False(t, a.StartedAt.Before(before) || a.StartedAt.After(after), "started during the test")
			require.GreaterOrEqual(t, a.Duration, time.Duration(0))
			require.LessOrEqual(t, a.StartedAt.Add(a.Duration), after)
		})
	}
}

// A transform that fails names its class; the row's reason is its answer.
func TestATransformFailureNamesItsClass(t *testing.T) {
	t.Parallel()
	fr := newFakeRoutes()
	fr.routes[0].Transform = &deliver.TransformSpec{Expression: `$error("refused")`, TimeoutMs: 100, MaxDepth: 100,
		OnError: deliver.StrategyDead}
	store := newMemStore(claimed("t", "order.created", 0, 3))
	runLedgerFake(t, fr, store, &answering{}, nil)
	got := store.outcome(t, "t")
	require.Equal(t, queuebox.OutcomeDead, got.Kind)
	require.Equal(t, queuebox.ClassTransform, got.Attempt.Class)
	require.Equal(t, got.Error, got.Attempt.Answer)
	require.Empty(t, got.Attempt.Status)
}

// A row the destination's gate turns away is deferred with the gate's
// reason as its class: with one publish in flight allowed and that one
// held, the second row waits for a free slot and is deferred, in_flight.
func TestAGateDeferralNamesItsReason(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(hold) }) })
	pub := &answering{receipt: queuebox.Receipt{Status: "204"}, hold: hold}
	flows := flow.NewSet([]flow.Config{{Name: "api", MaxInFlight: 1}}, prometheus.NewRegistry(), nil, quiet())
	store := newMemStore(claimed("x", "order.created", 0, 3), claimed("y", "order.created", 0, 3))
	runLedgerFake(t, newFakeRoutes(), store, pub, flows)

	var deferred queuebox.Outcome
	require.Eventually(t, func() bool {
		store.mu.Lock()
		defer store.mu.Unlock()
		for _, o := range store.outcomes {
			if o.Kind == queuebox.OutcomeDefer {
				deferred = o
				return true
			}
		}
		return false
	}, 20*time.Second, 5*time.Millisecond, "one row is deferred while the other holds the slot")
	release.Do(func() { close(hold) })
	require.Equal(t, queuebox.AttemptClass(flow.ReasonInFlight), deferred.Attempt.Class)
	require.Equal(t, queuebox.ClassInFlight, deferred.Attempt.Class)
	require.Empty(t, deferred.Attempt.Status, "no publish, no status")
	other := "x"
	if deferred.Lease.ID == "x" {
		other = "y"
	}
	sent := store.outcome(t, other)
	require.Equal(t, queuebox.OutcomeSent, sent.Kind)
	require.Equal(t, "204", sent.Attempt.Status)
}
