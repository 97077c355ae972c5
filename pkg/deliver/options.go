package deliver

import (
	"cmp"
	"errors"
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/deliver/flow"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// Options wire a Poller. Store, Router and Metrics are required; a zero
// setting takes the default named beside it, which is the default of the
// matching outbox key.
type Options struct {
	Store      queuebox.OutboxStore
	Router     *Router
	Publishers map[string]queuebox.Publisher // by destination name
	Transforms *Transforms                   // nil when no transform is configured
	Flow       *flow.Set                     // nil: no flow control
	Redactor   *redact.Redactor              // nil applies the key rules only
	Metrics    *Metrics
	Logger     *slog.Logger // nil discards

	// BatchSize is the most rows of one claim (outbox.batchSize, 100).
	BatchSize int
	// Concurrency is the rows published at once (outbox.concurrency, 8).
	Concurrency int
	// PollInterval is the longest wait between two claims (100ms): the
	// wiring passes outbox.pollIntervalMs, or the reconciliation interval
	// of capture when wake-ups claim sooner.
	PollInterval time.Duration
	// ClaimTimeout is the lease of a claimed row and the patience of the
	// outcome writes (outbox.claimTimeoutMs, 5m).
	ClaimTimeout time.Duration
	// ShutdownTimeout bounds the drain of the rows in flight when the
	// poller stops (outbox.shutdownTimeoutMs, 30s).
	ShutdownTimeout time.Duration
	// RetryBaseDelay is the first wait of a failed row, doubled for each
	// attempt (outbox.retryBaseDelayMs). Zero retries at once: it has no
	// default, since zero is a valid setting.
	RetryBaseDelay time.Duration
	// PendingGaugeInterval is the least time between two reads of the
	// pending gauges (outbox.pendingGaugeIntervalMs, 5s).
	PendingGaugeInterval time.Duration
	// MaxErrorBytes cuts last_error and the logged reasons
	// (http.maxErrorBodyBytes, 2048).
	MaxErrorBytes int
}

// The defaults of Options, the defaults of the outbox keys.
const (
	DefaultBatchSize            = 100
	DefaultConcurrency          = 8
	DefaultPollInterval         = 100 * time.Millisecond
	DefaultClaimTimeout         = 5 * time.Minute
	DefaultShutdownTimeout      = 30 * time.Second
	DefaultPendingGaugeInterval = 5 * time.Second
	DefaultMaxErrorBytes        = 2048
)

// withDefaults fills the zero settings and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Store == nil || o.Router == nil || o.Metrics == nil {
		return o, errors.New("deliver: Store, Router and Metrics are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BatchSize < 0 || o.Concurrency < 0 || o.MaxErrorBytes < 0 || o.PollInterval < 0 || o.ClaimTimeout < 0 ||
		o.ShutdownTimeout < 0 || o.RetryBaseDelay < 0 || o.PendingGaugeInterval < 0 {
		return o, errors.New("deliver: no setting may be negative")
	}
	o.BatchSize = cmp.Or(o.BatchSize, DefaultBatchSize)
	o.Concurrency = cmp.Or(o.Concurrency, DefaultConcurrency)
	o.PollInterval = cmp.Or(o.PollInterval, DefaultPollInterval)
	o.ClaimTimeout = cmp.Or(o.ClaimTimeout, DefaultClaimTimeout)
	o.ShutdownTimeout = cmp.Or(o.ShutdownTimeout, DefaultShutdownTimeout)
	o.PendingGaugeInterval = cmp.Or(o.PendingGaugeInterval, DefaultPendingGaugeInterval)
	o.MaxErrorBytes = cmp.Or(o.MaxErrorBytes, DefaultMaxErrorBytes)
	return o, nil
}
