package postgres

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/wake"
)

// ListenerOptions wire a Listener.
type ListenerOptions struct {
	// ConnString is the pgx connection string of database.url. It holds
	// the password: it is never logged.
	ConnString string
	// Channel is the channel to listen on: wake.Channel when empty. It must be
	// a plain lower case identifier.
	Channel string
	// DisplayURL is the masked database.url, for logs.
	DisplayURL string
	// Wake asks delivery for a claim now (deliver.Poller.Wake). It must
	// not block.
	Wake   func()
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the wait between two connection
	// attempts: 250 ms and 10 s when zero.
	MinBackoff, MaxBackoff time.Duration
	// Heartbeat is how long the connection may stay silent before the
	// listener checks that it still answers: 30 s when zero.
	Heartbeat time.Duration
}

// Listener keeps one dedicated connection (never a pooled one: LISTEN
// belongs to a session) listening on its channel, and calls Wake for each
// notification. After every (re)connect it calls Wake once more, because
// the notifications sent while it was away are gone. It implements the
// component contract of package run; Run returns nil once ctx ends.
type Listener struct {
	opts ListenerOptions
	// listening, when set, is called after each successful LISTEN (tests).
	listening func()
}

// NewListener sets the defaults and returns the listener.
func NewListener(opts ListenerOptions) *Listener {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 250 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 10 * time.Second
	}
	if opts.Channel == "" {
		opts.Channel = wake.Channel
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 30 * time.Second
	}
	return &Listener{opts: opts}
}

// Name implements run.Component.
func (l *Listener) Name() string { return "outbox-wake-listener" }

// Run listens until ctx ends. A lost connection is reopened with a
// backoff; delivery keeps its reconciliation timer meanwhile.
func (l *Listener) Run(ctx context.Context) error {
	retry := backoff.Doubling{Min: l.opts.MinBackoff, Max: l.opts.MaxBackoff}
	for ctx.Err() == nil {
		listened, err := l.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			retry.Reset()
		}
		wait := retry.Next()
		l.opts.Logger.Warn("wake-up listener lost its connection; delivery claims on its reconciliation timer until it is back",
			"url", l.opts.DisplayURL, "retry_in_ms", wait.Milliseconds(), "err", err)
		if !backoff.Sleep(ctx, wait) {
			return nil
		}
	}
	return nil
}

// session connects, listens and waits for notifications until the
// connection fails or ctx ends. listened says whether LISTEN succeeded.
func (l *Listener) session(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.Connect(ctx, l.opts.ConnString)
	if err != nil {
		return false, err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, "LISTEN "+l.opts.Channel); err != nil {
		return false, err
	}
	l.opts.Logger.Debug("listening for wake-ups", "channel", l.opts.Channel)
	if l.listening != nil {
		l.listening()
	}
	// Whatever was notified while this replica did not listen is lost.
	l.opts.Wake()
	for {
		wctx, cancel := context.WithTimeout(ctx, l.opts.Heartbeat)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if n.Channel == l.opts.Channel {
				l.opts.Wake()
			}
		case ctx.Err() != nil:
			return true, nil
		case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
			if err := l.ping(ctx, conn); err != nil {
				return true, err
			}
		default:
			return true, err
		}
	}
}

// ping checks a silent connection, so a half-open one is replaced.
func (l *Listener) ping(ctx context.Context, conn *pgx.Conn) error {
	if conn.IsClosed() {
		return errors.New("connection closed")
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return conn.Ping(pctx)
}
