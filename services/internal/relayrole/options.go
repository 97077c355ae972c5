package relayrole

import (
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/relay"
)

// relayOptions maps inbox.relay, the topic of each source and the outbox
// keys the relay shares onto the settings of the relay; the wiring adds
// the store, the metrics and the logger.
func relayOptions(cfg *config.Config) relay.Options {
	rc := cfg.Inbox.Relay
	topics := make(map[string]string, len(cfg.Sources))
	for name, src := range cfg.Sources {
		topics[name] = src.Topic
	}
	return relay.Options{
		Topics:               topics,
		MaxAttempts:          cfg.EffectiveMaxAttempts(),
		BatchSize:            rc.BatchSize,
		PollInterval:         config.Ms(rc.PollIntervalMs),
		ClaimTimeout:         config.Ms(rc.ClaimTimeoutMs),
		ShutdownTimeout:      config.Ms(cfg.Outbox.ShutdownTimeoutMs),
		PendingGaugeInterval: config.Ms(rc.PendingGaugeIntervalMs),
	}
}
