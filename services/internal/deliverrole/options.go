package deliverrole

import (
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/deliver/flow"
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

// flowConfigs maps the flowControl block of every destination onto the
// gates of the poller.
func flowConfigs(cfg *config.Config) []flow.Config {
	out := make([]flow.Config, 0, len(cfg.Destinations))
	for name, d := range cfg.Destinations {
		f := d.FlowControl
		out = append(out, flow.Config{
			Name:          name,
			MaxInFlight:   f.EffectiveMaxInFlight(cfg.Outbox.Concurrency),
			RatePerSecond: f.RatePerSecond,
			Breaker: flow.BreakerConfig{Enabled: f.CircuitBreaker.Enabled, FailureThreshold: f.CircuitBreaker.FailureThreshold,
				Open: config.Ms(f.CircuitBreaker.OpenMs), MaxOpen: config.Ms(config.MaxOpenMs)},
			HonorRetryAfter: f.HonorRetryAfter,
			MaxRetryAfter:   config.Ms(f.MaxRetryAfterMs),
		})
	}
	return out
}
