package deliver_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// A publish that can never succeed sends the row dead on its first
// attempt instead of burning every attempt.
func TestUndeliverablePublishIsDeadAtOnce(t *testing.T) {
	t.Parallel()
	store := newMemStore(claimed("u", "order.created", 0, 5))
	err := fmt.Errorf("http destination api: %w", queuebox.Undeliverable("header X-Topic holds a control character"))
	runFake(t, newFakeRoutes(), store, &scriptedPublisher{err: err})
	got := store.outcome(t, "u")
	require.Equal(t, queuebox.OutcomeDead, got.Kind)
	require.Equal(t, "Publish to api failed: http destination api: header X-Topic holds a control character", got.Error)
}

// A NUL byte or invalid UTF-8 in a failure reason would make the outcome
// write fail on every try; last_error never holds them.
func TestFailureReasonLosesNULAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	store := newMemStore(claimed("n", "order.created", 0, 5))
	runFake(t, newFakeRoutes(), store, &scriptedPublisher{err: errors.New("bad\x00body\xff end")})
	got := store.outcome(t, "n")
	require.Equal(t, queuebox.OutcomeRetry, got.Kind)
	require.Equal(t, "Publish to api failed: badbody\uFFFD end", got.Error)
}
