package relay

import (
	"cmp"
	"errors"
	"log/slog"
	"time"
)

// Options wire a Relay. Store and Metrics are required; a zero setting
// takes the default named beside it, which is the default of the matching
// inbox.relay key.
type Options struct {
	Store   Store
	Metrics *Metrics
	Logger  *slog.Logger // nil discards

	// Topics holds the topic template of each configured source, by
	// source name (RenderTopic renders it).
	Topics map[string]string
	// MaxAttempts is the max_attempts of the outbox rows the relay writes
	// (inbox.relay.maxAttempts, else outbox.maxAttempts; 5).
	MaxAttempts int
	// BatchSize is the most rows of one claim (inbox.relay.batchSize, 100).
	BatchSize int
	// PollInterval is the longest wait between two claims
	// (inbox.relay.pollIntervalMs, 100ms).
	PollInterval time.Duration
	// ClaimTimeout is the lease of a claimed row and the patience of the
	// writes (inbox.relay.claimTimeoutMs, 5m).
	ClaimTimeout time.Duration
	// ShutdownTimeout bounds the drain when the relay stops (the wiring
	// passes outbox.shutdownTimeoutMs; 30s).
	ShutdownTimeout time.Duration
	// PendingGaugeInterval is the least time between two reads of the
	// oldest-pending gauge (inbox.relay.pendingGaugeIntervalMs, 5s).
	PendingGaugeInterval time.Duration
}

// The defaults of Options.
const (
	DefaultMaxAttempts          = 5
	DefaultBatchSize            = 100
	DefaultPollInterval         = 100 * time.Millisecond
	DefaultClaimTimeout         = 5 * time.Minute
	DefaultShutdownTimeout      = 30 * time.Second
	DefaultPendingGaugeInterval = 5 * time.Second
)

// withDefaults fills the zero settings and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Store == nil || o.Metrics == nil {
		return o, errors.New("relay: Store and Metrics are required")
	}
	if o.MaxAttempts < 0 || o.BatchSize < 0 || o.PollInterval < 0 || o.ClaimTimeout < 0 ||
		o.ShutdownTimeout < 0 || o.PendingGaugeInterval < 0 {
		return o, errors.New("relay: no setting may be negative")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.MaxAttempts = cmp.Or(o.MaxAttempts, DefaultMaxAttempts)
	o.BatchSize = cmp.Or(o.BatchSize, DefaultBatchSize)
	o.PollInterval = cmp.Or(o.PollInterval, DefaultPollInterval)
	o.ClaimTimeout = cmp.Or(o.ClaimTimeout, DefaultClaimTimeout)
	o.ShutdownTimeout = cmp.Or(o.ShutdownTimeout, DefaultShutdownTimeout)
	o.PendingGaugeInterval = cmp.Or(o.PendingGaugeInterval, DefaultPendingGaugeInterval)
	return o, nil
}
