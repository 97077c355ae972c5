package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/startup"
)

// Stores is the PostgreSQL set of stores over one pool and one table
// layout; it implements queuebox.Stores. It is safe for concurrent use.
// Close closes the pool: call it once, after every store it built is no
// longer used.
type Stores struct {
	DB     *DB
	Layout schema.Layout
	// Now, when set, is the clock of the lease statements of every store
	// the set builds (see WithClock): tests set it to move time forward.
	// nil, the production setting, keeps the database clock.
	Now func() time.Time
	// Partitioning is the time partitioning the set keeps (see
	// Partitions); Enabled false keeps none.
	Partitioning Partitioning
}

var _ queuebox.Stores = (*Stores)(nil)

// StoresOptions configure OpenStores: the pool (Options) plus what the
// set needs of the schema. The caller maps the configuration onto it
// (pkg/store does for database.*).
type StoresOptions struct {
	Options
	// Layout is the table layout the statements are rendered for.
	Layout schema.Layout
	// Migrate applies the bundled migrations before the schema guard
	// (database.migrate).
	Migrate bool
	// Partitioning is database.partitioning. With Migrate, a new database
	// is made partitioned; with or without, the start is refused when the
	// tables disagree with Partitioning.Enabled.
	Partitioning Partitioning
}

// OpenStores connects (retrying up to opts.StartupTimeout), migrates when
// opts.Migrate is true and runs the startup schema guard. On an error
// nothing stays open.
func OpenStores(ctx context.Context, opts StoresOptions) (*Stores, error) {
	pool, err := Open(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	s := &Stores{DB: pool, Layout: opts.Layout, Partitioning: opts.Partitioning}
	if s.Layout, err = startup.Prepare(ctx, s.DB, s.Layout, opts.Migrate, opts.Logger); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.preparePartitions(ctx, opts); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// preparePartitions makes a new database partitioned when asked, then
// refuses a database whose tables disagree with the setting.
func (s *Stores) preparePartitions(ctx context.Context, opts StoresOptions) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Migrate {
		if err := s.DB.Partition(ctx, s.Layout, opts.Partitioning, log); err != nil {
			return err
		}
	}
	return s.DB.CheckPartitioning(ctx, s.Layout, opts.Partitioning.Enabled)
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

// PgxConnString is the pgx connection string of the pool's database, for
// a component that needs sessions of its own (capture's owner lock and
// pool). It holds the password: never log it.
func (s *Stores) PgxConnString() string { return s.DB.connString }
