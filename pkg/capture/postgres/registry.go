package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/capture"
)

// loadRow reads the state row of identity; nil when there is none.
func loadRow(ctx context.Context, pool *pgxpool.Pool, identity string) (*capture.Registered, error) {
	var r capture.Registered
	err := pool.QueryRow(ctx, captureStateFindSQL, identity).Scan(&r.Instance, &r.Fingerprint)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read queuebox_capture_state: %w", err)
	}
	return &r, nil
}

// register records a first start: the row and the identity file, the
// file written inside the row's transaction so that a failed write
// leaves no row behind.
func register(ctx context.Context, pool *pgxpool.Pool, dir capture.StateDir, s capture.Settings, instance string) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("register the capture identity: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, captureStateInsertSQL, s.Identity, instance, s.Fingerprint()); err != nil {
		return fmt.Errorf("register the capture identity: %w", err)
	}
	if err := dir.WriteIdentity(s.Identity, instance, s); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("register the capture identity: %w", err)
	}
	return nil
}

// touchRow records that the identity started again.
func touchRow(ctx context.Context, pool *pgxpool.Pool, identity string) error {
	_, err := pool.Exec(ctx, captureStateTouchSQL, identity)
	if err != nil {
		return fmt.Errorf("update queuebox_capture_state: %w", err)
	}
	return nil
}

// lockClass is the first key of the owner lock ("QBCX"), so it does not
// collide with an application's single-key advisory locks.
const lockClass = 0x51424358

// owner holds the session advisory lock of one identity on a dedicated
// connection (an unlock or a check on another pooled connection would
// not see it). It is used by one goroutine at a time.
type owner struct {
	conn *pgx.Conn
}

// acquireOwner connects and tries the lock once. held false means that
// another session holds it.
func acquireOwner(ctx context.Context, connString, identity string) (*owner, bool, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, false, fmt.Errorf("connect for the capture owner lock: %w", err)
	}
	var held bool
	if err := conn.QueryRow(ctx, ownerLockTrySQL, int32(lockClass), identity).Scan(&held); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, false, fmt.Errorf("take the capture owner lock: %w", err)
	}
	if !held {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, false, nil
	}
	return &owner{conn: conn}, true, nil
}

// heartbeat checks that the lock session is alive: a backend that died
// took the lock with it, and the owner learns it only by asking.
func (o *owner) heartbeat(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := o.conn.Ping(hctx); err != nil {
		return fmt.Errorf("the capture owner lock session failed: %w", err)
	}
	return nil
}

// release closes the session, which frees the lock.
func (o *owner) release() { _ = o.conn.Close(context.Background()) }
