package relayrole

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/relay"
)

// The defaults of the relay are the defaults of the keys, so a relay
// built in code behaves as a loaded configuration does.
func TestRelayOptionsOfTheDefaults(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Sources = map[string]*config.Source{"shop": {Name: "shop", Topic: "shop.{eventType}"}}
	require.Equal(t, relay.Options{
		Topics: map[string]string{"shop": "shop.{eventType}"}, MaxAttempts: relay.DefaultMaxAttempts,
		BatchSize: relay.DefaultBatchSize, PollInterval: relay.DefaultPollInterval, ClaimTimeout: relay.DefaultClaimTimeout,
		ShutdownTimeout: relay.DefaultShutdownTimeout, PendingGaugeInterval: relay.DefaultPendingGaugeInterval,
	}, relayOptions(&cfg))
}

// inbox.relay.maxAttempts wins over outbox.maxAttempts, and the drain is
// outbox.shutdownTimeoutMs.
func TestRelayOptionsTakeTheRelayKeys(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	n := 9
	cfg.Inbox.Relay.MaxAttempts = &n
	cfg.Outbox.MaxAttempts = 3
	cfg.Outbox.ShutdownTimeoutMs = 1500
	opts := relayOptions(&cfg)
	require.Equal(t, 9, opts.MaxAttempts)
	require.Equal(t, 1500*time.Millisecond, opts.ShutdownTimeout)
}
