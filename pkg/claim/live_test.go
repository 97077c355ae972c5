package claim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// heldSource is a fakeSource whose claims and renewals wait, once each
// gate is set, until the test opens it: a statement whose answer comes
// late, as to a process that was stopped (SIGSTOP) while it ran.
type heldSource struct {
	*fakeSource
	claimGate, renewGate *gate
	claimSent, renewSent chan struct{}
	renewAnswered        chan struct{}
}

func newHeldSource(src *fakeSource) *heldSource {
	return &heldSource{fakeSource: src, claimSent: make(chan struct{}, 100), renewSent: make(chan struct{}, 100),
		renewAnswered: make(chan struct{}, 100)}
}

func (s *heldSource) Claim(ctx context.Context, limit int) ([]item, error) {
	out, err := s.fakeSource.Claim(ctx, limit)
	if s.claimGate != nil && len(out) > 0 {
		s.claimSent <- struct{}{}
		<-s.claimGate.ch
	}
	return out, err
}

func (s *heldSource) Renew(ctx context.Context, leases []claim.Lease) (map[string]bool, error) {
	if s.renewGate != nil {
		s.renewSent <- struct{}{}
		<-s.renewGate.ch
	}
	kept, err := s.fakeSource.Renew(ctx, leases)
	s.renewAnswered <- struct{}{}
	return kept, err
}

// TestLiveGivesUpALeaseThatRunsOut: a handler asks Live before its
// publish. When, by the local clock from the moment the claim or the
// last renewal that found the row was sent, less than a quarter of the
// lease is left, Live reports false, the work's context ends with
// ErrLeaseEnding, the loss is reported once, and the lease is renewed no
// more, so the row returns to pending when it runs out. An answer that
// comes after the lease (the process was stopped meanwhile) does not make
// the lease look younger than the database's.
func TestLiveGivesUpALeaseThatRunsOut(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claim", "renewal"} {
		t.Run("the "+name+"'s answer comes after the lease", func(t *testing.T) {
			t.Parallel()
			runLateAnswer(t, name == "claim")
		})
	}
}

func runLateAnswer(t *testing.T, lateClaim bool) {
	const leaseFor = 300 * time.Millisecond
	src := newHeldSource(newSource(item{id: "a", token: "t1"}))
	// Renewals wait at their gate: in the claim case none is answered
	// before the handler asks; in the renewal case the first is answered
	// after the lease.
	src.renewGate = newGate()
	late, sent := src.renewGate, src.renewSent
	if lateClaim {
		src.claimGate = newGate()
		late, sent = src.claimGate, src.claimSent
	}
	var lost lostLog
	asked := make(chan bool, 1)
	cause := make(chan error, 1)
	mayAsk := newGate()
	var l *claim.Loop[item]
	l = claim.New(claim.Config{
		Name: "test", BatchSize: 1, Concurrency: 1, PollInterval: tick, LeaseDuration: leaseFor, Logger: quiet(),
		Hooks: claim.Hooks{Lost: lost.hook},
	}, src, func(ctx context.Context, it item) {
		<-mayAsk.ch
		asked <- l.Live(it.Lease())
		<-ctx.Done()
		cause <- context.Cause(ctx)
	})
	running(t, l, mayAsk, src.renewGate, late)

	waitSignal(t, sent, "the late statement")
	pastTheLease(t, leaseFor)
	late.open()
	if !lateClaim {
		waitSignal(t, src.renewAnswered, "the late renewal's answer")
	}
	mayAsk.open()

	require.False(t, <-asked, "the lease ran out by the local clock")
	require.ErrorIs(t, <-cause, claim.ErrLeaseEnding)
	require.ErrorIs(t, claim.ErrLeaseEnding, queuebox.ErrLeaseLost, "the handler treats it as a lost lease")
	require.Eventually(t, func() bool { return l.Held() == 0 }, wait, tick)
	require.Equal(t, []claim.Lease{{ID: "a", Token: "t1"}}, lost.get(), "the loss is reported once")
}

// A lease renewed in time stays live: Live reports true after each
// renewal that found it, and the handler's work goes on.
func TestLiveHoldsARenewedLease(t *testing.T) {
	t.Parallel()
	// Long enough that a busy machine does not delay a renewal by a
	// quarter of it.
	const leaseFor = 2 * time.Second
	src := newHeldSource(newSource(item{id: "a", token: "t1"}))
	release := newGate()
	answers := make(chan bool, 1)
	var l *claim.Loop[item]
	l = claim.New(claim.Config{
		Name: "test", BatchSize: 1, Concurrency: 1, PollInterval: tick, LeaseDuration: leaseFor, Logger: quiet(),
	}, src, func(ctx context.Context, it item) {
		live := true
		for range 3 {
			<-src.renewAnswered
			live = live && l.Live(it.Lease())
		}
		answers <- live && ctx.Err() == nil
		<-release.ch
	})
	running(t, l, release)
	require.True(t, <-answers, "a renewed lease stayed live")
	require.False(t, l.Live(claim.Lease{ID: "b", Token: "t1"}), "a lease the loop does not hold is not live")
	release.open()
}

func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-waitTimeout():
		t.Fatalf("%s did not come", what)
	}
}

// pastTheLease waits until a whole lease has passed from now: a condition
// on the clock that a busy machine only makes longer.
func pastTheLease(t *testing.T, lease time.Duration) {
	t.Helper()
	from := time.Now()
	require.Eventually(t, func() bool { return time.Since(from) > lease }, wait, tick)
}
