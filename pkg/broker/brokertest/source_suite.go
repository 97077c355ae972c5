package brokertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/source"
)

// The timing of the consumers of the source cases.
const (
	sourceMinBackoff = 10 * time.Millisecond
	sourceMaxBackoff = 100 * time.Millisecond
	// sourceDrain lets the message in hand finish at a stop; only the
	// case that stops during a store that never commits shortens it.
	sourceDrain = 10 * time.Second
)

// ExerciseSource runs the source contract against the brokers of f. Every
// broker source (a consumer that hands its messages through
// source.Runner) passes it, on a real broker:
//
//   - It acknowledges a message only after its row committed: a consumer
//     stopped while the store hangs leaves the message with the broker,
//     and the next consumer stores it.
//   - It acknowledges a duplicate (the inbox already holds the key), a
//     Rejected message and a Dead one (whose dead row is stored first),
//     so none of them comes again.
//   - It gives a message back after a failed store and stores it on the
//     redelivery: while the database is down, no message is lost, and
//     once it is back each row is there exactly once.
//   - It terminates a Rejected message: the broker drops or dead-letters
//     it (Limits.NoTerminate skips the count of terminations).
//   - It hands the receive step (ingest.Receiver) the whole body and every
//     header: a message past the body bound or the header cap is stored
//     dead and acknowledged, and a header with a NUL or invalid UTF-8 is
//     stored cleaned.
//   - It stores what it fetched in groups (ReceiveBatch), in the order of
//     the queue, stream or partition. A store that fails in the middle of
//     a group gives the whole group back, and the redelivery ends with
//     one row per key. A message that cannot be stored (dead, rejected,
//     refused by the database) is decided alone: its neighbours are
//     stored at the first try. A stop during a group's store lets the
//     group finish and be acknowledged, and leaves the rest with the
//     broker: nothing is lost.
//
// Cases run as parallel subtests, each on a fresh queue, stream or topic
// with a SourceReceiver; run the suite with -race. Bounds on time catch a
// hang, not a slow machine.
func ExerciseSource(t *testing.T, f SourceFactory) {
	t.Helper()
	require.NotNil(t, f.New, "SourceFactory.New")
	lim := f.Limits
	if lim.NoTerminate && lim.Why == "" {
		t.Fatal("brokertest: SourceFactory.Limits skips cases but gives no Why")
	}
	cases := []struct {
		name string
		skip bool
		flag string
		run  func(*testing.T, SourceBroker)
	}{
		{"StoresAndAcknowledges", false, "", testSourceStores},
		{"AcknowledgesOnlyAfterTheCommit", false, "", testSourceAckAfterCommit},
		{"AcknowledgesADuplicate", false, "", testSourceDuplicate},
		{"RedeliversAfterAFailedStore", false, "", testSourceRedeliver},
		{"LosesNothingWhileTheDatabaseIsDown", false, "", testSourceDatabaseDown},
		{"RejectedIsNotRedelivered", false, "", testSourceRejected},
		{"RejectedIsTerminated", lim.NoTerminate, "NoTerminate", testSourceTerminated},
		{"DeadIsStoredThenAcknowledged", false, "", testSourceDead},
		{"PastTheLimitsIsStoredDeadThenAcknowledged", false, "", testSourcePastTheLimits},
		{"HeaderWithNULIsStored", false, "", testSourceHeaderWithNUL},
		{"StoresAGroupInQueueOrder", false, "", testSourceGroupOrder},
		{"RedeliversTheGroupAfterAFailureMidway", false, "", testSourceGroupFailure},
		{"PoisonDoesNotFailItsNeighbours", false, "", testSourcePoisonInGroup},
		{"StopDuringAGroupLosesNothing", false, "", testSourceStopMidGroup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.skip {
				t.Skipf("Limits.%s: %s", c.flag, lim.Why)
			}
			t.Parallel()
			b := f.New(t)
			require.NotNil(t, b, "SourceFactory.New returned no broker")
			c.run(t, b)
		})
	}
}

// startSource runs a consumer of b with recv and the given drain, and
// returns the func that stops it and waits for Run's nil. The test's end
// stops it too.
func startSource(t *testing.T, b SourceBroker, recv source.Receiver, drain time.Duration) (stop func()) {
	t.Helper()
	cancel, wait := runSource(t, b, recv, drain)
	return func() {
		cancel()
		wait()
	}
}

// runSource runs a consumer of b with recv and the given drain, and
// returns the func that cancels its context and the one that waits for
// Run's nil after that. The test's end does both.
func runSource(t *testing.T, b SourceBroker, recv source.Receiver, drain time.Duration) (cancel, wait func()) {
	t.Helper()
	c := b.Consumer(t, SourceConfig{Receiver: recv, MinBackoff: sourceMinBackoff, MaxBackoff: sourceMaxBackoff,
		DrainTimeout: drain})
	require.NotNil(t, c, "SourceBroker.Consumer returned no consumer")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var once sync.Once
	wait = func() {
		once.Do(func() {
			require.NoError(t, await(t, done, drain+time.Minute, "Run after its context was cancelled"))
		})
	}
	t.Cleanup(func() {
		cancel()
		wait()
	})
	return cancel, wait
}

// requireRemaining waits until the broker holds n messages for the
// source.
func requireRemaining(t *testing.T, b SourceBroker, n int, why string) {
	t.Helper()
	require.Eventually(t, func() bool { return b.Remaining(t) == n }, time.Minute, 10*time.Millisecond,
		"%d messages left with the broker: %s", n, why)
}
