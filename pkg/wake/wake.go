// Package wake carries capture's wake-up between processes: the capture
// owner sends a PostgreSQL NOTIFY on Channel when an outbox insert
// commits, and every deliver replica LISTENs on it and claims at once.
// A notification carries no message data; SQL stays the only source of
// truth, so a lost wake-up costs latency, never a message.
package wake

import (
	"context"
	"log/slog"
	"time"
)

// Channel is the NOTIFY channel of outbox wake-ups. It is the same for
// every identity and table: notifications are scoped to one database, and
// a spurious wake-up costs one empty claim.
const Channel = "queuebox_outbox_wake"

// notifySQL sends one empty notification. pg_notify takes the channel as a
// parameter, so no SQL is built from text.
const notifySQL = "SELECT pg_notify($1, '')"

// Execer runs one statement; *pgxpool.Pool and *pgx.Conn satisfy it
// through ExecFunc.
type Execer func(ctx context.Context, sql string, args ...any) error

// Notifier coalesces wake requests into NOTIFY statements: while one
// NOTIFY is in flight, every Wake merges into a single following one, so a
// burst of a thousand inserts costs a handful of notifications. Wake is
// safe for concurrent use and never blocks. Run sends until ctx ends.
type Notifier struct {
	exec    Execer
	channel string
	log     *slog.Logger
	pending chan struct{}
	// sent, when set, is called after each NOTIFY that succeeded (tests
	// and metrics).
	sent func()
}

// NewNotifier returns a notifier that sends on channel (Channel when
// empty) through exec; sent, when set, runs after each NOTIFY that
// succeeded.
func NewNotifier(exec Execer, channel string, log *slog.Logger, sent func()) *Notifier {
	if log == nil {
		log = slog.Default()
	}
	if channel == "" {
		channel = Channel
	}
	return &Notifier{exec: exec, channel: channel, log: log, pending: make(chan struct{}, 1), sent: sent}
}

// Wake asks for one NOTIFY; wakes that arrive before it is sent merge.
func (n *Notifier) Wake() {
	select {
	case n.pending <- struct{}{}:
	default:
	}
}

// notifyTimeout bounds one NOTIFY, so a hung pool cannot hold the wakes.
const notifyTimeout = 5 * time.Second

// Run sends the pending wake-ups until ctx ends and returns nil. A failed
// NOTIFY is logged (once per failure streak) and dropped: the deliver
// replicas' reconciliation timer covers it.
func (n *Notifier) Run(ctx context.Context) error {
	failing := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-n.pending:
		}
		sctx, cancel := context.WithTimeout(ctx, notifyTimeout)
		err := n.exec(sctx, notifySQL, n.channel)
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil:
			if !failing {
				n.log.Warn("wake-up notification failed; deliver replicas wait for their reconciliation timer",
					"channel", n.channel, "err", err)
			}
			failing = true
		default:
			if failing {
				n.log.Info("wake-up notifications are sent again", "channel", n.channel)
			}
			failing = false
			if n.sent != nil {
				n.sent()
			}
		}
	}
}
