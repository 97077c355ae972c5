package config

import (
	"fmt"
	"strconv"
	"time"
)

// Default returns a Config with every documented default and no source,
// destination or route. The loader decodes each source over it, so a key
// that no source sets keeps its default.
func Default() Config {
	return Config{
		Server: Server{HTTPPort: 8080},
		Database: Database{
			Type:                DatabasePostgres,
			PoolSize:            10,
			ConnectionTimeoutMs: 30000,
			StartupTimeoutMs:    60000,
			Migrate:             true,
			OutboxTableName:     "outbox",
			InboxTableName:      "inbox",
			ColumnMapping:       ColumnMapping{Outbox: DefaultOutboxColumns(), Inbox: DefaultInboxColumns()},
			Partitioning:        Partitioning{Interval: Duration{D: 24 * time.Hour, Text: "1d"}, Premake: 3},
		},
		Outbox: Outbox{
			PollIntervalMs:         100,
			BatchSize:              100,
			Concurrency:            8,
			RetryBaseDelayMs:       1000,
			MaxAttempts:            5,
			ClaimTimeoutMs:         300000,
			PendingGaugeIntervalMs: 5000,
			ShutdownTimeoutMs:      30000,
			Capture: Capture{
				Mode:                     CapturePolling,
				Identity:                 "queuebox",
				Publication:              "queuebox_outbox",
				Slot:                     "queuebox_outbox",
				ReconciliationIntervalMs: 1000,
				Connection:               CaptureConnection{Encrypt: true},
			},
			Ledger: Ledger{Enabled: true},
		},
		Inbox: Inbox{
			BasePath:     "/inbox",
			MaxBodyBytes: 1048576,
			Relay: Relay{
				Enabled:                true,
				PollIntervalMs:         100,
				BatchSize:              100,
				ClaimTimeoutMs:         300000,
				PendingGaugeIntervalMs: 5000,
			},
		},
		HTTP:  HTTP{MaxErrorBodyBytes: 2048},
		Admin: Admin{MaxTransformTimeoutMs: 1000, MaxPayloadBytes: 65536},
		Retention: Retention{
			Outbox: defaultRetentionPolicy(),
			Inbox:  defaultRetentionPolicy(),
			Ledger: LedgerRetention{
				Policy: PolicyAge, MaxAge: Duration{D: 7 * 24 * time.Hour, Text: "7d"},
				CleanupInterval: Duration{D: time.Hour, Text: "1h"}, BatchSize: 1000,
			},
		},
	}
}

func defaultRetentionPolicy() RetentionPolicy {
	return RetentionPolicy{Policy: PolicyDisabled, CleanupInterval: Duration{D: time.Hour, Text: "1h"}, BatchSize: 1000}
}

// DefaultOutboxColumns returns the column names of the bundled schema.
func DefaultOutboxColumns() OutboxColumns {
	return OutboxColumns{
		ID: "id", Topic: "topic", Key: "key", AggregateType: "aggregate_type",
		Payload: "payload", Headers: "headers", State: "state", Attempt: "attempt",
		MaxAttempts: "max_attempts", ScheduledAt: "scheduled_at", CreatedAt: "created_at",
		UpdatedAt: "updated_at", ClaimedAt: "claimed_at", ClaimToken: "claim_token",
		LeaseExpiresAt: "lease_expires_at", LastError: "last_error", Sequence: "sequence",
		Destination: "destination", OriginID: "origin_id",
	}
}

// DefaultInboxColumns returns the column names of the bundled schema.
func DefaultInboxColumns() InboxColumns {
	return InboxColumns{
		ID: "id", Source: "source", IdempotencyKey: "idempotency_key", AggregateID: "aggregate_id",
		EventType: "event_type", Payload: "payload", State: "state", CreatedAt: "created_at",
		ProcessedAt: "processed_at", ClaimedAt: "claimed_at", ClaimToken: "claim_token",
		LeaseExpiresAt: "lease_expires_at", CorrelationID: "correlation_id", Consumption: "consumption",
		ScheduledAt: "scheduled_at", Attempt: "attempt", LastError: "last_error", Headers: "headers",
	}
}

// newDestination returns an entry prefilled with the defaults of every kind.
func newDestination() *Destination {
	return &Destination{
		TimeoutMs:          30000,
		Path:               "/",
		HTTP1FastPath:      true,
		ExchangeType:       "topic",
		RoutingKeyTemplate: "{{ topic }}",
		DeliveryMode:       "persistent",
		KeyTemplate:        "{{ key }}",
		SecurityProtocol:   "PLAINTEXT",
		JetStream:          true,
		FlowControl:        defaultFlowControl(),
	}
}

// The defaults of flowControl; maxInFlight depends on outbox.concurrency.
const (
	DefaultFailureThreshold = 5
	DefaultOpenMs           = 30000
	DefaultMaxRetryAfterMs  = 3600000
	// MaxOpenMs bounds circuitBreaker.openMs and its doubling: ten minutes.
	MaxOpenMs = 600000
)

func defaultFlowControl() FlowControl {
	return FlowControl{
		CircuitBreaker:  CircuitBreaker{Enabled: true, FailureThreshold: DefaultFailureThreshold, OpenMs: DefaultOpenMs},
		HonorRetryAfter: true,
		MaxRetryAfterMs: DefaultMaxRetryAfterMs,
	}
}

// newSource returns an entry prefilled with the defaults that do not depend
// on its kind. Topic and IdempotencyKeyPath defaults depend on the kind and
// are filled after kind selection.
func newSource() *Source {
	return &Source{
		Consumption:      ConsumptionPush,
		PrefetchCount:    10,
		AutoOffsetReset:  "earliest",
		MaxPollRecords:   100,
		SecurityProtocol: "PLAINTEXT",
		AckWaitMs:        30000,
		BatchSize:        100,
		AttributeHeaders: AttributeHeaders{
			IdempotencyKey: "x-idempotency-key",
			AggregateID:    "x-aggregate-id",
			EventType:      "x-event-type",
		},
	}
}

// newTransform returns a transform block with its defaults.
func newTransform() *Transform {
	return &Transform{TimeoutMs: 100, MaxDepth: 100, OnError: OnErrorFail}
}

// newSourceAuth returns an auth block with its kind-independent defaults.
func newSourceAuth() *SourceAuth {
	return &SourceAuth{Algorithm: "HmacSHA256", TimestampTolerance: 300000, ToleranceSeconds: defaultPresetToleranceSeconds}
}

// Duration is a retention duration: a whole number and one suffix of s, m,
// h or d, for example 7d.
type Duration struct {
	D    time.Duration
	Text string
}

// ParseDuration parses a retention duration.
func ParseDuration(text string) (Duration, error) {
	if len(text) < 2 {
		return Duration{}, fmt.Errorf("%q is not a duration: write a whole number and one of s, m, h or d, for example 7d", text)
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[text[len(text)-1]]
	n, err := strconv.ParseInt(text[:len(text)-1], 10, 64)
	if unit == 0 || err != nil || n < 0 || text[0] == '+' {
		return Duration{}, fmt.Errorf("%q is not a duration: write a whole number and one of s, m, h or d, for example 7d", text)
	}
	return Duration{D: time.Duration(n) * unit, Text: text}, nil
}

// String returns the duration as written.
func (d Duration) String() string { return d.Text }

// Ms converts a whole number of milliseconds to a time.Duration.
func Ms(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// EffectiveMaxAttempts is the max_attempts that the relay writes.
func (c *Config) EffectiveMaxAttempts() int {
	if c.Inbox.Relay.MaxAttempts != nil {
		return *c.Inbox.Relay.MaxAttempts
	}
	return c.Outbox.MaxAttempts
}
