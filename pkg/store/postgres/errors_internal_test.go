package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// TestInterpretError: driver errors become the store's errors in one
// place, and an error it does not know passes as it is.
func TestInterpretError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	require.NoError(t, interpretError(ctx, nil, nil))

	err := interpretError(ctx, nil, pgx.ErrNoRows)
	require.ErrorIs(t, err, errNotFound)
	require.ErrorIs(t, err, pgx.ErrNoRows, "the driver's error stays inside")

	var refused *queuebox.RefusedValueError
	err = interpretError(ctx, nil, &pgconn.PgError{Code: "22P02", Message: "invalid input syntax for type json", Detail: "Token \"x\" is invalid."})
	require.ErrorAs(t, err, &refused)
	require.Equal(t, `invalid input syntax for type json: Token "x" is invalid.`, refused.Reason)
	require.ErrorIs(t, err, queuebox.ErrRefusedValue)

	unique := &pgconn.PgError{Code: "23505", Message: "duplicate key"}
	require.Same(t, error(unique), interpretError(ctx, nil, unique), "a constraint failure is no data exception")

	timedOut, cancel := context.WithTimeoutCause(ctx, 0, ErrAcquireTimeout)
	defer cancel()
	<-timedOut.Done()
	require.Equal(t, ErrAcquireTimeout, interpretError(timedOut, nil, timedOut.Err()))

	cancelled, stop := context.WithCancel(ctx)
	stop()
	require.ErrorIs(t, interpretError(cancelled, nil, cancelled.Err()), context.Canceled,
		"the caller's own cancellation is no acquire timeout")
	require.False(t, errors.Is(interpretError(cancelled, nil, cancelled.Err()), ErrAcquireTimeout))
}
