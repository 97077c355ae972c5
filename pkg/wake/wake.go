// Package wake carries capture's wake-up between processes: when an outbox
// insert commits, the capture owner signals on Channel and every deliver
// replica claims at once. A wake-up carries no message data; SQL stays
// the only source of truth, so a lost wake-up costs latency, never a
// message.
//
// This package is the dialect-neutral part: Channel, and the Notifier
// that coalesces wake requests and holds each commit's wake-up until it is
// visible, written against the Sender interface. The mechanisms of each
// database are its sub-packages, peers like the stores: wake/postgres
// (NOTIFY and LISTEN) and wake/sqlserver (a wake row that capture bumps
// and every replica polls, as SQL Server has no LISTEN).
//
// A commit reaches the replication stream before it is visible: the
// server flushes the commit record and wakes its WAL senders before the
// committing session leaves the list of running transactions, and a
// claim in that window does not see the row. A wake sent then would be
// spent on an empty claim and the row would wait for the reconciliation
// timer, so the notifier holds each commit's wake-up until a new snapshot
// sees the transaction finished (see WakeAfter).
package wake

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Channel is the channel of outbox wake-ups: the NOTIFY channel on
// PostgreSQL, the key of the wake row on SQL Server. It is the same for
// every identity and table: wake-ups are scoped to one database, and a
// spurious wake-up costs one empty claim.
const Channel = "queuebox_outbox_wake"

// Sender is the database side of a Notifier; wake/postgres PG implements
// it.
type Sender interface {
	// Notify sends one notification on channel.
	Notify(ctx context.Context, channel string) error
	// Running returns those of xids (32-bit transaction ids of commits the
	// stream reported) that a snapshot taken now still counts as running.
	Running(ctx context.Context, xids []uint32) ([]uint32, error)
}

// Timing of the wait for visibility. The window is normally well under a
// millisecond; a commit that stays invisible for long (a synchronous
// standby that does not answer) is woken for after maxVisibilityWait
// anyway, since the reconciliation timer covers it too.
const (
	firstVisibilityRetry = time.Millisecond
	maxVisibilityRetry   = 50 * time.Millisecond
	maxVisibilityWait    = 30 * time.Second
	// maxWaiting bounds the commits held at once; past it the oldest are
	// no longer waited for (they are the likeliest to be visible).
	maxWaiting = 4096
)

// notifyTimeout bounds one statement, so a hung pool cannot hold the
// wakes.
const notifyTimeout = 5 * time.Second

// Notifier coalesces wake requests into NOTIFY statements: while one
// NOTIFY is in flight, every request merges into a single following one,
// so a burst of a thousand inserts costs a handful of notifications. Wake
// and WakeAfter are safe for concurrent use and never block. Run sends
// until ctx ends.
type Notifier struct {
	db      Sender
	channel string
	log     *slog.Logger
	signal  chan struct{}
	// sent, when set, is called after each NOTIFY that succeeded (tests
	// and metrics).
	sent func()

	mu    sync.Mutex
	plain bool     // a wake-up that waits for nothing is asked
	xids  []uint32 // commits whose wake-up waits for visibility
}

// NewNotifier returns a notifier that sends on channel (Channel when
// empty) through db; sent, when set, runs after each NOTIFY that
// succeeded.
func NewNotifier(db Sender, channel string, log *slog.Logger, sent func()) *Notifier {
	if log == nil {
		log = slog.Default()
	}
	if channel == "" {
		channel = Channel
	}
	return &Notifier{db: db, channel: channel, log: log, signal: make(chan struct{}, 1), sent: sent}
}

// Wake asks for one NOTIFY now; requests that arrive before it is sent
// merge.
func (n *Notifier) Wake() {
	n.mu.Lock()
	n.plain = true
	n.mu.Unlock()
	n.poke()
}

// WakeAfter asks for one NOTIFY once the transaction xid, whose commit the
// replication stream reported, is visible to a new snapshot.
func (n *Notifier) WakeAfter(xid uint32) {
	n.mu.Lock()
	n.xids = append(n.xids, xid)
	if over := len(n.xids) - maxWaiting; over > 0 {
		n.xids = append(n.xids[:0], n.xids[over:]...)
	}
	n.mu.Unlock()
	n.poke()
}

func (n *Notifier) poke() {
	select {
	case n.signal <- struct{}{}:
	default:
	}
}

// take returns and clears the requests.
func (n *Notifier) take() (plain bool, xids []uint32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	plain, xids = n.plain, n.xids
	n.plain, n.xids = false, nil
	return plain, xids
}

// Run sends the pending wake-ups until ctx ends and returns nil. A failed
// statement is logged (once per failure streak) and dropped: the deliver
// replicas' reconciliation timer covers it.
func (n *Notifier) Run(ctx context.Context) error {
	w := waiter{n: n}
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-n.signal:
		case <-retry.C:
		}
		plain, xids := n.take()
		notify := w.settle(ctx, xids) || plain
		if ctx.Err() != nil {
			return nil
		}
		if notify {
			n.notify(ctx, &w)
		}
		retry.Stop()
		if len(w.waiting) > 0 {
			retry.Reset(w.backoff)
		}
	}
}

func (n *Notifier) notify(ctx context.Context, w *waiter) {
	sctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	err := n.db.Notify(sctx, n.channel)
	cancel()
	switch {
	case err != nil && ctx.Err() != nil:
	case err != nil:
		w.failed(err)
	default:
		w.succeeded()
		if n.sent != nil {
			n.sent()
		}
	}
}
