package sqlserver

import (
	"context"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/startup"
)

// Stores is the SQL Server set of stores over one pool and one table
// layout; it implements queuebox.Stores. It is safe for concurrent use.
// Close closes the pool: call it once, after every store it built is no
// longer used.
type Stores struct {
	DB     *DB
	Layout schema.Layout
	// Now, when set, is the clock of the lease statements of every store
	// the set builds (see WithClock). nil keeps SYSUTCDATETIME().
	Now func() time.Time
	// WakePoll is how often WakeSource reads the wake row; zero means
	// wakesql.DefaultPoll (pkg/wake/sqlserver).
	WakePoll time.Duration
}

var _ queuebox.Stores = (*Stores)(nil)

// StoresOptions configure OpenStores: the pool (Options) plus what the
// set needs of the schema.
type StoresOptions struct {
	Options
	// Layout is the table layout the statements are rendered for.
	Layout schema.Layout
	// Migrate applies the bundled migrations before the schema guard.
	Migrate bool
}

// OpenStores connects (retrying up to opts.StartupTimeout), migrates when
// opts.Migrate is true and runs the startup schema guard. On an error
// nothing stays open.
func OpenStores(ctx context.Context, opts StoresOptions) (*Stores, error) {
	db, err := Open(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	s := &Stores{DB: db, Layout: opts.Layout}
	if s.Layout, err = startup.Prepare(ctx, s.DB, s.Layout, opts.Migrate, opts.Logger); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Outbox implements queuebox.Stores.
func (s *Stores) Outbox(lease time.Duration) (queuebox.OutboxStore, error) {
	return NewOutbox(s.DB, s.Layout, lease, WithClock(s.Now))
}

// Relay implements queuebox.Stores.
func (s *Stores) Relay(p queuebox.RelayParams) (queuebox.RelayStore, error) {
	return NewRelay(s.DB, s.Layout, p, WithClock(s.Now))
}

// Inbox implements queuebox.Stores.
func (s *Stores) Inbox() (queuebox.InboxStore, error) { return NewInbox(s.DB, s.Layout) }

// Replay implements queuebox.Stores.
func (s *Stores) Replay() (queuebox.Replayer, error) { return NewReplay(s.DB, s.Layout) }

// Workbench implements queuebox.Stores.
func (s *Stores) Workbench() (queuebox.WorkbenchStore, error) { return NewWorkbench(s.DB, s.Layout) }

// Retention implements queuebox.Stores.
func (s *Stores) Retention() (queuebox.RetentionStore, error) { return NewRetention(s.DB, s.Layout) }

// Ping implements queuebox.Stores.
func (s *Stores) Ping(ctx context.Context) error { return s.DB.Ping(ctx) }

// Close implements queuebox.Stores.
func (s *Stores) Close() { s.DB.Close() }
