package claim_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fakeClock passes every pause at once and records it. With block set,
// a pause never passes; onPause runs as it starts.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	pauses  []time.Duration
	block   bool
	onPause func()
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.pauses = append(c.pauses, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	if !c.block {
		ch <- c.now
	}
	onPause := c.onPause
	c.mu.Unlock()
	if onPause != nil {
		onPause()
	}
	return ch
}

// When ctx ends, as cancel names it.
const (
	never        = ""
	beforeDo     = "before Do"
	inFirstTry   = "in the first try"
	inFirstPause = "in the first pause"
)

type retryCase struct {
	name     string
	fails    int // the first fails tries fail
	cancel   string
	patience time.Duration
	maxPause time.Duration
	// want
	tries  []string // "first" or "again", per try
	pauses []time.Duration
	failed []int
	err    bool
}

const ms = time.Millisecond

var retryCases = []retryCase{
	{name: "success at the first try", patience: time.Minute,
		tries: []string{"first"}},
	{name: "failure then success takes again", fails: 1, patience: time.Minute,
		tries: []string{"first", "again"}, pauses: []time.Duration{50 * ms}, failed: []int{1}},
	{name: "pauses double up to MaxPause", fails: 4, patience: time.Minute, maxPause: 300 * ms,
		tries:  []string{"first", "again", "again", "again", "again"},
		pauses: []time.Duration{50 * ms, 100 * ms, 200 * ms, 300 * ms}, failed: []int{1, 2, 3, 4}},
	{name: "patience exhausted returns the last error", fails: 99, patience: 2 * time.Second,
		tries:  append([]string{"first"}, repeat("again", 20)...),
		pauses: append([]time.Duration{50 * ms}, repeat(100*ms, 19)...), failed: upTo(21), err: true},
	// A restart of the database takes a good part of a short lease: a
	// pause of seconds would pass the moment it comes back, and the
	// leases with it.
	{name: "pauses stay under a twentieth of the patience", fails: 5, patience: 3 * time.Second,
		tries:  []string{"first", "again", "again", "again", "again", "again"},
		pauses: []time.Duration{50 * ms, 100 * ms, 150 * ms, 150 * ms, 150 * ms}, failed: upTo(5)},
	{name: "a tiny patience also caps the first pause", fails: 1, patience: 200 * ms,
		tries: []string{"first", "again"}, pauses: []time.Duration{10 * ms}, failed: upTo(1)},
	{name: "cancel in a pause: one final try decides", fails: 1, cancel: inFirstPause, patience: time.Minute,
		tries: []string{"first", "again"}, pauses: []time.Duration{50 * ms}, failed: []int{1}},
	{name: "cancel in a pause: the final try's error", fails: 99, cancel: inFirstPause, patience: time.Minute,
		tries: []string{"first", "again"}, pauses: []time.Duration{50 * ms}, failed: []int{1, 2}, err: true},
	{name: "cancel before Do: one final try after the first", fails: 99, cancel: beforeDo, patience: time.Minute,
		tries: []string{"first", "again"}, failed: []int{1, 2}, err: true},
	{name: "cancel in a try: one final try", fails: 1, cancel: inFirstTry, patience: time.Minute,
		tries: []string{"first", "again"}, failed: []int{1}},
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// upTo is 1 to n.
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestWriteRetryDo(t *testing.T) {
	t.Parallel()
	for _, tc := range retryCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t)
		})
	}
}

func (tc retryCase) run(t *testing.T) {
	boom := errors.New("connection reset")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &fakeClock{now: time.Unix(0, 0)}
	switch tc.cancel {
	case beforeDo:
		cancel()
	case inFirstPause:
		clock.block, clock.onPause = true, cancel
	}
	var tries []string
	write := func(name string) claim.Write {
		return func(wctx context.Context) (map[string]bool, error) {
			tries = append(tries, name)
			require.NoError(t, wctx.Err(), "each try has a live context")
			_, bounded := wctx.Deadline()
			require.True(t, bounded, "each try has a timeout")
			if tc.cancel == inFirstTry && len(tries) == 1 {
				cancel()
			}
			if len(tries) <= tc.fails {
				return nil, boom
			}
			return map[string]bool{"a": true}, nil
		}
	}
	var failed []int
	r := claim.WriteRetry{Patience: tc.patience, MaxPause: tc.maxPause, Clock: clock}
	kept, err := r.Do(ctx, write("first"), write("again"), func(attempt int, err error) {
		require.ErrorIs(t, err, boom)
		failed = append(failed, attempt)
	})

	require.Equal(t, tc.tries, tries)
	require.Equal(t, tc.pauses, clock.pauses)
	require.Equal(t, tc.failed, failed)
	if tc.err {
		require.ErrorIs(t, err, boom)
		require.Nil(t, kept)
		return
	}
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a": true}, kept)
}

// A pause on the wall clock ends as soon as ctx does: Do never sleeps
// through a cancellation. With a broken pause this test hangs for an hour.
func TestWriteRetryPauseEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failedOnce := make(chan struct{})
	done := make(chan error, 1)
	tries := 0
	go func() {
		fail := func(context.Context) (map[string]bool, error) { tries++; return nil, errors.New("away") }
		r := claim.WriteRetry{Patience: 40 * time.Hour, FirstPause: time.Hour}
		_, err := r.Do(ctx, fail, fail, func(attempt int, _ error) {
			if attempt == 1 {
				close(failedOnce)
			}
		})
		done <- err
	}()
	<-failedOnce
	cancel()
	select {
	case err := <-done:
		require.Error(t, err)
		require.Equal(t, 2, tries, "the first try and one final try")
	case <-waitTimeout():
		t.Fatal("Do slept through the cancellation")
	}
}

func TestLogAttempt(t *testing.T) {
	t.Parallel()
	var logged []int
	for attempt := 1; attempt <= 30; attempt++ {
		if claim.LogAttempt(attempt) {
			logged = append(logged, attempt)
		}
	}
	require.Equal(t, []int{1, 10, 20, 30}, logged)
}

// A value the database refuses fails the same way on every try: Do
// returns it after the first, without a pause.
func TestWriteRetryStopsAtARefusedValue(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Unix(0, 0)}
	refused := &queuebox.RefusedValueError{Reason: "value too long for type character varying(255)"}
	tries := 0
	write := func(context.Context) (map[string]bool, error) { tries++; return nil, refused }
	r := claim.WriteRetry{Patience: time.Hour, Clock: clock}
	_, err := r.Do(context.Background(), write, write, func(int, error) {})
	require.ErrorIs(t, err, queuebox.ErrRefusedValue)
	require.Equal(t, 1, tries)
	require.Empty(t, clock.pauses)
}
