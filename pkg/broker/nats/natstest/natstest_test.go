package natstest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// refusingJS answers CreateStream with the errors in order, then with
// success; every other method is the nil interface's (unused here).
type refusingJS struct {
	jetstream.JetStream
	errs  []error
	calls int
}

func (f *refusingJS) CreateStream(context.Context, jetstream.StreamConfig) (jetstream.Stream, error) {
	f.calls++
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	return nil, nil
}

// TestCreateStreamTriesTheStoreRaceAgain: the server's "error creating
// store for stream" (a delete of the account's last stream removed the
// store directory under the create) is tried again until the create
// succeeds; any other refusal comes back at once.
func TestCreateStreamTriesTheStoreRaceAgain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	race := &jetstream.APIError{Code: 500, ErrorCode: natstest.ErrStoreCreate, Description: "error creating store for stream"}
	js := &refusingJS{errs: []error{race, race}}
	_, err := natstest.CreateStream(ctx, js, jetstream.StreamConfig{Name: "S"})
	require.NoError(t, err)
	require.Equal(t, 3, js.calls)

	inUse := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamNameInUse}
	js = &refusingJS{errs: []error{inUse}}
	_, err = natstest.CreateStream(ctx, js, jetstream.StreamConfig{Name: "S"})
	require.True(t, errors.Is(err, inUse) || errors.As(err, new(*jetstream.APIError)))
	require.Equal(t, 1, js.calls)
}
