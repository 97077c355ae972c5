package sqlserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"
)

// Locker takes the owner lock of a capture identity.
type Locker interface {
	// TryLock tries the lock once; held false (and a nil Lock) means that
	// another session holds it.
	TryLock(ctx context.Context, identity string) (lock Lock, held bool, err error)
}

// Lock is a held owner lock. It is used by one goroutine at a time.
type Lock interface {
	// Heartbeat checks that the session holding the lock is alive.
	Heartbeat(ctx context.Context) error
	// Release frees the lock and ends its session; call it once.
	Release()
}

// lockResource is the application lock resource of identity.
func lockResource(identity string) string { return "queuebox_capture_" + identity }

// SQLLocker takes the owner lock with sp_getapplock, owned by the session
// of a connection dedicated to it (a pooled connection would carry the
// lock back into the pool). It is safe for concurrent use.
type SQLLocker struct {
	pool *sql.DB
	try  string
	free string
}

// NewSQLLocker returns the locker over pool; the caller keeps pool open
// while a Lock it returned is held.
func NewSQLLocker(pool *sql.DB) (*SQLLocker, error) {
	try, err := Statement("owner_lock_try", "")
	if err != nil {
		return nil, err
	}
	free, err := Statement("owner_lock_release", "")
	if err != nil {
		return nil, err
	}
	return &SQLLocker{pool: pool, try: try, free: free}, nil
}

// TryLock implements Locker.
func (l *SQLLocker) TryLock(ctx context.Context, identity string) (Lock, bool, error) {
	conn, err := l.pool.Conn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("connect for the capture owner lock: %w", err)
	}
	resource := lockResource(identity)
	var status int
	if err := conn.QueryRowContext(ctx, l.try, resource).Scan(&status); err != nil {
		discard(conn)
		return nil, false, fmt.Errorf("take the capture owner lock: %w", err)
	}
	switch {
	case status >= 0:
		return &sqlLock{conn: conn, free: l.free, resource: resource}, true, nil
	case status == -1:
		discard(conn)
		return nil, false, nil
	default:
		discard(conn)
		return nil, false, fmt.Errorf("take the capture owner lock: sp_getapplock answered %d", status)
	}
}

// sqlLock is the dedicated connection that holds the lock.
type sqlLock struct {
	conn     *sql.Conn
	free     string
	resource string
}

// Heartbeat implements Lock.
func (l *sqlLock) Heartbeat(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := l.conn.PingContext(hctx); err != nil {
		return fmt.Errorf("the capture owner lock session failed: %w", err)
	}
	return nil
}

// Release implements Lock: it releases the lock, then discards the
// connection, so that no pooled session could still hold it.
func (l *sqlLock) Release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = l.conn.ExecContext(ctx, l.free, l.resource)
	discard(l.conn)
}

// discard closes the driver connection under conn instead of returning
// it to the pool: database/sql drops a connection whose Raw callback
// answers driver.ErrBadConn.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = conn.Close()
}

// Database is what sqlserver-cdc needs of the store set of database.url;
// the SQL Server store set implements it. Capture runs on that pool:
// outbox.capture.connection does not give it a connection of its own.
type Database interface {
	// CaptureDB runs capture's statements on the pool of the set.
	CaptureDB() DB
	// CapturePool is the pool the owner lock takes its dedicated
	// connection from; the set closes it.
	CapturePool() *sql.DB
}
