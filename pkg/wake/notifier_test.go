package wake_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/wake"
)

// fakeSender records notifications and answers Running from a set of
// transactions that still run.
type fakeSender struct {
	mu        sync.Mutex
	running   map[uint32]bool
	notifyErr error
	runErr    error
	hold      chan struct{} // when set, the first Notify waits on it
	notifies  int
	checked   [][]uint32
}

func (f *fakeSender) Notify(ctx context.Context, _ string) error {
	f.mu.Lock()
	f.notifies++
	first, hold, err := f.notifies == 1, f.hold, f.notifyErr
	f.mu.Unlock()
	if first && hold != nil {
		<-hold
	}
	return err
}

func (f *fakeSender) Running(_ context.Context, xids []uint32) ([]uint32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checked = append(f.checked, slices.Clone(xids))
	if f.runErr != nil {
		return nil, f.runErr
	}
	var still []uint32
	for _, x := range xids {
		if f.running[x] {
			still = append(still, x)
		}
	}
	return still, nil
}

func (f *fakeSender) set(fn func(f *fakeSender)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeSender) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notifies
}

// start runs a notifier on f; sent receives one value per NOTIFY that
// succeeded.
func start(t *testing.T, f *fakeSender) (*wake.Notifier, <-chan struct{}) {
	t.Helper()
	sent := make(chan struct{}, 100)
	n := wake.NewNotifier(f, "chan_a", slog.New(slog.DiscardHandler), func() { sent <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return n, sent
}

// waitSignal waits for one value on ch, failing with what after 30 s.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal(what)
	}
}

func TestNotifierCoalescesABurst(t *testing.T) {
	t.Parallel()
	f := &fakeSender{hold: make(chan struct{})}
	n, sent := start(t, f)
	n.Wake()
	require.Eventually(t, func() bool { return f.count() == 1 }, 10*time.Second, time.Millisecond)
	for i := range 1000 {
		n.Wake()
		n.WakeAfter(uint32(i))
	}
	close(f.hold)
	waitSignal(t, sent, "no notification")
	waitSignal(t, sent, "no notification")
	require.Never(t, func() bool { return f.count() > 2 }, 100*time.Millisecond, 10*time.Millisecond,
		"a burst during one NOTIFY merges into one more")
}

// TestNotifierWaitsUntilTheCommitIsVisible: the stream reports a commit
// before other sessions see it; the NOTIFY waits until a snapshot does.
func TestNotifierWaitsUntilTheCommitIsVisible(t *testing.T) {
	t.Parallel()
	f := &fakeSender{running: map[uint32]bool{41: true}}
	n, sent := start(t, f)
	n.WakeAfter(41)
	require.Eventually(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.checked) >= 3
	}, 10*time.Second, time.Millisecond, "the notifier checks again while the commit is invisible")
	require.Zero(t, f.count(), "no NOTIFY while the commit is invisible")
	f.set(func(f *fakeSender) { delete(f.running, 41) })
	waitSignal(t, sent, "no notification")
	require.Equal(t, 1, f.count())
}

// TestNotifierWakesForVisibleCommitsWhileOthersWait: one commit still
// invisible holds back no other; it gets its own NOTIFY once visible.
func TestNotifierWakesForVisibleCommitsWhileOthersWait(t *testing.T) {
	t.Parallel()
	f := &fakeSender{running: map[uint32]bool{2: true}}
	n, sent := start(t, f)
	n.WakeAfter(1)
	n.WakeAfter(2)
	waitSignal(t, sent, "no notification")
	f.set(func(f *fakeSender) { delete(f.running, 2) })
	waitSignal(t, sent, "no notification")
	f.mu.Lock()
	last := f.checked[len(f.checked)-1]
	f.mu.Unlock()
	require.Equal(t, []uint32{2}, last, "only the commit still waiting is checked again")
}

// TestNotifierWakesWhenTheCheckFails: a failed visibility check must not
// cost the wake-up.
func TestNotifierWakesWhenTheCheckFails(t *testing.T) {
	t.Parallel()
	f := &fakeSender{runErr: errors.New("connection refused")}
	n, sent := start(t, f)
	n.WakeAfter(7)
	waitSignal(t, sent, "no notification")
}

func TestNotifierSurvivesAFailedNotify(t *testing.T) {
	t.Parallel()
	f := &fakeSender{notifyErr: errors.New("connection refused")}
	n, sent := start(t, f)
	require.Equal(t, wake.Channel, wake.NotifierChannel(wake.NewNotifier(f, "", nil, nil)))
	n.Wake()
	require.Eventually(t, func() bool { return f.count() == 1 }, 10*time.Second, time.Millisecond)
	f.set(func(f *fakeSender) { f.notifyErr = nil })
	n.Wake()
	waitSignal(t, sent, "no notification")
}
