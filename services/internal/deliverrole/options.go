package deliverrole

import (
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
)

// pollerSettings maps the outbox keys and http.maxErrorBodyBytes onto the
// settings of the poller; the wiring adds the store, router, publishers
// and the rest.
func pollerSettings(cfg *config.Config) deliver.Options {
	ob := cfg.Outbox
	return deliver.Options{
		BatchSize:            ob.BatchSize,
		Concurrency:          ob.Concurrency,
		PollInterval:         pollInterval(ob),
		ClaimTimeout:         config.Ms(ob.ClaimTimeoutMs),
		ShutdownTimeout:      config.Ms(ob.ShutdownTimeoutMs),
		RetryBaseDelay:       config.Ms(ob.RetryBaseDelayMs),
		PendingGaugeInterval: config.Ms(ob.PendingGaugeIntervalMs),
		MaxErrorBytes:        cfg.HTTP.MaxErrorBodyBytes,
	}
}

// pollInterval is the longest wait between two claims: with capture,
// outbox.capture.reconciliationIntervalMs (wake-ups claim sooner), and
// outbox.pollIntervalMs without.
func pollInterval(ob config.Outbox) time.Duration {
	if ob.Capture.Wakes() {
		return config.Ms(ob.Capture.ReconciliationIntervalMs)
	}
	return config.Ms(ob.PollIntervalMs)
}
