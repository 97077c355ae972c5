package source_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/source"
)

// groups records the groups that ReceiveBatch got, and answers each with
// the decisions of its turn, or fails it.
type groups struct {
	turns [][]ingest.Outcome // nil turn: the store fails
	got   [][]string
}

func (g *groups) Name() string { return "orders" }

func (g *groups) Receive(context.Context, ingest.Message) (ingest.Decision, error) {
	panic("the runner stores through ReceiveBatch only")
}

func (g *groups) ReceiveBatch(_ context.Context, msgs []ingest.Message) ([]ingest.Decision, error) {
	var bodies []string
	for _, m := range msgs {
		bodies = append(bodies, string(m.Body))
	}
	g.got = append(g.got, bodies)
	turn := g.turns[0]
	g.turns = g.turns[1:]
	if turn == nil {
		return nil, errors.New("the database is down")
	}
	ds := make([]ingest.Decision, len(turn))
	for i, o := range turn {
		ds[i] = ingest.Decision{Outcome: o}
	}
	return ds, nil
}

// groupOf returns n messages with the bodies m-0 … and an answers each
// that records into one shared log with the message's index.
func groupOf(n int, log *[]string) ([]ingest.Message, []source.Answer) {
	msgs := make([]ingest.Message, n)
	answers := make([]source.Answer, n)
	for i := range n {
		msgs[i] = ingest.Message{Body: fmt.Appendf(nil, "m-%d", i)}
		answers[i] = &indexed{i: i, log: log}
	}
	return msgs, answers
}

// indexed is the Answer of one message of a group.
type indexed struct {
	i   int
	log *[]string
}

func (a *indexed) Ack(d ingest.Decision) {
	*a.log = append(*a.log, fmt.Sprintf("%d ack %s", a.i, d.Outcome))
}

func (a *indexed) Term(d ingest.Decision) {
	*a.log = append(*a.log, fmt.Sprintf("%d term %s", a.i, d.Outcome))
}

func (a *indexed) Nak(_ context.Context, retryIn time.Duration) {
	*a.log = append(*a.log, fmt.Sprintf("%d nak %s", a.i, retryIn))
}

func TestHandleBatchStoresTheGroupOnceAndAnswersEachMessageInOrder(t *testing.T) {
	t.Parallel()
	recv := &groups{turns: [][]ingest.Outcome{
		{ingest.Stored, ingest.Rejected, ingest.Dead, ingest.Duplicate, ingest.Filtered},
	}}
	r, err := source.New(source.Options{Receiver: recv})
	require.NoError(t, err)
	var log []string
	msgs, answers := groupOf(5, &log)
	res := r.HandleBatch(t.Context(), msgs, answers)
	require.Equal(t, source.Result{Settled: true}, res)
	require.Equal(t, [][]string{{"m-0", "m-1", "m-2", "m-3", "m-4"}}, recv.got, "one store of the whole group, in order")
	require.Equal(t, []string{"0 ack stored", "1 term rejected", "2 ack dead", "3 ack duplicate", "4 ack filtered"}, log,
		"a rejected message is terminated alone; its neighbours are acknowledged")
}

func TestHandleBatchGivesTheWholeGroupBackAfterAFailedStore(t *testing.T) {
	t.Parallel()
	recv := &groups{turns: [][]ingest.Outcome{nil, nil, {ingest.Stored, ingest.Duplicate, ingest.Stored}, nil}}
	r, err := source.New(source.Options{Receiver: recv, MinBackoff: time.Second, MaxBackoff: 5 * time.Second})
	require.NoError(t, err)
	var log []string
	var results []source.Result
	for range 4 {
		msgs, answers := groupOf(3, &log)
		results = append(results, r.HandleBatch(t.Context(), msgs, answers))
	}
	require.Equal(t, []string{
		"0 nak 1s", "1 nak 0s", "2 nak 0s",
		"0 nak 2s", "1 nak 0s", "2 nak 0s",
		"0 ack stored", "1 ack duplicate", "2 ack stored",
		"0 nak 1s", "1 nak 0s", "2 nak 0s",
	}, log, "every message of a failed group is given back; the group waits the doubling backoff once")
	require.Equal(t, []source.Result{{RetryIn: time.Second}, {RetryIn: 2 * time.Second}, {Settled: true},
		{RetryIn: time.Second}}, results)
}

// short decides fewer messages than the group holds: a broken receive
// step.
type short struct{ groups }

func (s *short) ReceiveBatch(context.Context, []ingest.Message) ([]ingest.Decision, error) {
	return []ingest.Decision{{Outcome: ingest.Stored}}, nil
}

func TestHandleBatchSettlesNothingWithoutADecisionPerMessage(t *testing.T) {
	t.Parallel()
	r, err := source.New(source.Options{Receiver: &short{}, MinBackoff: time.Second})
	require.NoError(t, err)
	var log []string
	msgs, answers := groupOf(2, &log)
	require.False(t, r.HandleBatch(t.Context(), msgs, answers).Settled)
	require.Equal(t, []string{"0 nak 1s", "1 nak 0s"}, log)
}

func TestHandleBatchPanicsOnAMismatchedGroup(t *testing.T) {
	t.Parallel()
	r, err := source.New(source.Options{Receiver: &groups{}})
	require.NoError(t, err)
	var log []string
	msgs, answers := groupOf(2, &log)
	require.Panics(t, func() { r.HandleBatch(t.Context(), msgs, answers[:1]) })
	require.Panics(t, func() { r.HandleBatch(t.Context(), nil, nil) })
}

func TestGatherTakesWhatIsThereWithoutWaiting(t *testing.T) {
	t.Parallel()
	ch := make(chan int, 20)
	for i := 1; i <= 12; i++ {
		ch <- i
	}
	group, open := source.Gather(0, ch, 10)
	require.True(t, open)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, group, "at most the limit, in order")
	group, open = source.Gather(<-ch, ch, 10)
	require.True(t, open)
	require.Equal(t, []int{10, 11, 12}, group, "what the channel holds, not waiting for the rest")
	group, open = source.Gather(13, ch, 10)
	require.True(t, open)
	require.Equal(t, []int{13}, group, "a lone item is not delayed")
	ch <- 14
	close(ch)
	group, open = source.Gather(13, ch, 10)
	require.False(t, open, "the channel was found closed")
	require.Equal(t, []int{13, 14}, group)
	group, _ = source.Gather(1, make(chan int), 0)
	require.Equal(t, []int{1}, group, "a limit below 1 counts as 1")
}
