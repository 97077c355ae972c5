package schema

// Names are the bare (unquoted) names of one deployment's two tables and
// of their columns: what New quotes into a Layout. The package reads no
// configuration; the store factory (pkg/store) maps the database block
// onto Names, and tests start from DefaultNames.
//
// OutboxColumns and InboxColumns list the same fields, in the same order,
// as the configuration's column mappings, so the factory converts one
// into the other directly and the compiler refuses the day they differ.
type Names struct {
	OutboxTable string
	InboxTable  string
	Outbox      OutboxColumns
	Inbox       InboxColumns
	// Partitioned says both tables are range-partitioned by created_at
	// (database.partitioning.enabled).
	Partitioned bool
}

// OutboxColumns holds the column name of each outbox field.
type OutboxColumns struct {
	ID             string
	Topic          string
	Key            string
	AggregateType  string
	Payload        string
	Headers        string
	State          string
	Attempt        string
	MaxAttempts    string
	ScheduledAt    string
	CreatedAt      string
	UpdatedAt      string
	ClaimedAt      string
	ClaimToken     string
	LeaseExpiresAt string
	LastError      string
	Sequence       string
	// Destination and OriginID are the lane columns (migration V16).
	Destination string
	OriginID    string
}

// InboxColumns holds the column name of each inbox field.
type InboxColumns struct {
	ID             string
	Source         string
	IdempotencyKey string
	AggregateID    string
	EventType      string
	Payload        string
	State          string
	CreatedAt      string
	ProcessedAt    string
	ClaimedAt      string
	ClaimToken     string
	LeaseExpiresAt string
	CorrelationID  string
	Consumption    string
	ScheduledAt    string
	Attempt        string
	LastError      string
	Headers        string
}

// DefaultNames returns the names that the bundled migrations create. The
// configuration's defaults name the same tables and columns; a test of
// the store factory keeps the two equal.
func DefaultNames() Names {
	return Names{
		OutboxTable: "outbox",
		InboxTable:  "inbox",
		Outbox: OutboxColumns{
			ID: "id", Topic: "topic", Key: "key", AggregateType: "aggregate_type",
			Payload: "payload", Headers: "headers", State: "state", Attempt: "attempt",
			MaxAttempts: "max_attempts", ScheduledAt: "scheduled_at", CreatedAt: "created_at",
			UpdatedAt: "updated_at", ClaimedAt: "claimed_at", ClaimToken: "claim_token",
			LeaseExpiresAt: "lease_expires_at", LastError: "last_error", Sequence: "sequence",
			Destination: "destination", OriginID: "origin_id",
		},
		Inbox: InboxColumns{
			ID: "id", Source: "source", IdempotencyKey: "idempotency_key", AggregateID: "aggregate_id",
			EventType: "event_type", Payload: "payload", State: "state", CreatedAt: "created_at",
			ProcessedAt: "processed_at", ClaimedAt: "claimed_at", ClaimToken: "claim_token",
			LeaseExpiresAt: "lease_expires_at", CorrelationID: "correlation_id", Consumption: "consumption",
			ScheduledAt: "scheduled_at", Attempt: "attempt", LastError: "last_error", Headers: "headers",
		},
	}
}
