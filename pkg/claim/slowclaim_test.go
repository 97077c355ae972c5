package claim_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// slowSource answers each claim only after hold, longer than half the
// lease of the loop under test.
type slowSource struct {
	*fakeSource
	hold time.Duration
}

func (s slowSource) Claim(ctx context.Context, limit int) ([]item, error) {
	select {
	case <-time.After(s.hold):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.fakeSource.Claim(ctx, limit)
}

// A claim that used up more than half the lease is a setting to change:
// the loop says so in one line that names the setting, however many
// claims are slow.
func TestASlowClaimWarnsOnceWithTheLeaseSetting(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	src := slowSource{fakeSource: newSource(item{"a", "t1"}, item{"b", "t1"}, item{"c", "t1"}), hold: 60 * time.Millisecond}
	l := claim.New(claim.Config{
		Name: "inbox-relay", BatchSize: 1, PollInterval: time.Millisecond,
		LeaseDuration: 100 * time.Millisecond, LeaseSetting: "inbox.relay.claimTimeoutMs",
		Logger: slog.New(slog.NewTextHandler(&out, nil)),
	}, src, func(context.Context, item) {})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	require.Eventually(t, func() bool { return src.claimCalls.Load() >= 4 }, 20*time.Second, time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	text := out.String()
	require.Equal(t, 1, strings.Count(text, "a claim took more than half the lease"), text)
	require.Contains(t, text, "setting=inbox.relay.claimTimeoutMs")
	require.Contains(t, text, "lease_ms=100")
}
