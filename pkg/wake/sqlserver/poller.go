package sqlserver

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
)

// DefaultPoll is how often a deliver replica reads the wake row when
// PollerOptions.Every is zero: one primary key seek, cheap enough to run
// several times per default poll interval of the outbox.
const DefaultPoll = 25 * time.Millisecond

// errNoWakeTable is SQL Server's "invalid object name" (208): the wake
// table does not exist until capture sqlserver-cdc first checks the
// database, so a replica that starts before it reads "no wake-up".
const errNoWakeTable = 208

// PollerOptions wire a Poller.
type PollerOptions struct {
	// DB reads the wake row (required); the pool of the store set.
	DB DB
	// Wake asks delivery for a claim now. It must not block.
	Wake func()
	// Logger, when set, reports the first failed read of a streak.
	Logger *slog.Logger
	// Every is the wait between two reads: DefaultPoll when zero.
	Every time.Duration
}

// Poller reads the wake row every interval and calls Wake when the
// generation moves; the first read counts as a wake-up, as a reconnect
// does for the PostgreSQL listener. It implements queuebox.WakeSource.
type Poller struct {
	reader *WakeReader
	opts   PollerOptions
}

// NewPoller sets the defaults and returns the poller.
func NewPoller(opts PollerOptions) *Poller {
	if opts.Every <= 0 {
		opts.Every = DefaultPoll
	}
	return &Poller{reader: NewWakeReader(opts.DB), opts: opts}
}

// Name implements queuebox.WakeSource.
func (p *Poller) Name() string { return "outbox-wake-listener" }

// Run reads the wake row every interval until ctx ends and returns nil
// then. A failed read is logged once per streak and the reads back off;
// the poller's own timer keeps delivery going meanwhile. A missing wake
// table reads as no wake-up.
func (p *Poller) Run(ctx context.Context) error {
	fails := backoff.Doubling{Min: p.opts.Every, Max: 5 * time.Second}
	wait := time.Duration(0)
	for backoff.Sleep(ctx, wait) {
		changed, err := p.reader.Changed(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil && !isNoWakeTable(err):
			if fails.Failures() == 0 && p.opts.Logger != nil {
				p.opts.Logger.Warn("read the wake row", "err", err)
			}
			wait = fails.Next()
			continue
		case changed:
			p.opts.Wake()
		}
		fails.Reset()
		wait = p.opts.Every
	}
	return nil
}

// numbered is what the go-mssqldb errors (mssql.Error) carry, read
// without importing the driver.
type numbered interface {
	error
	SQLErrorNumber() int32
}

func isNoWakeTable(err error) bool {
	var n numbered
	return errors.As(err, &n) && n.SQLErrorNumber() == errNoWakeTable
}
