package queuebox

import (
	"fmt"
	"regexp"
)

// Schema names the inbox table and its columns, for a table that does not
// use the bundled names (database.inboxTableName and
// database.columnMapping.inbox of the server). Start from DefaultSchema and
// change the names that differ. Every name must be a plain SQL identifier:
// a letter or an underscore, then letters, digits and underscores. The
// library quotes every name and NewInboxWorker refuses any other, so a
// mapping cannot carry SQL.
type Schema struct {
	Table          string
	ID             string
	Source         string
	IdempotencyKey string
	AggregateID    string
	EventType      string
	Payload        string
	Headers        string
	State          string
	Consumption    string
	Attempt        string
	LastError      string
	ScheduledAt    string
	CreatedAt      string
	ProcessedAt    string
	ClaimedAt      string
	ClaimToken     string
	LeaseExpiresAt string
	CorrelationID  string
}

// DefaultSchema returns the names of the bundled migrations.
func DefaultSchema() Schema {
	return Schema{
		Table:          "inbox",
		ID:             "id",
		Source:         "source",
		IdempotencyKey: "idempotency_key",
		AggregateID:    "aggregate_id",
		EventType:      "event_type",
		Payload:        "payload",
		Headers:        "headers",
		State:          "state",
		Consumption:    "consumption",
		Attempt:        "attempt",
		LastError:      "last_error",
		ScheduledAt:    "scheduled_at",
		CreatedAt:      "created_at",
		ProcessedAt:    "processed_at",
		ClaimedAt:      "claimed_at",
		ClaimToken:     "claim_token",
		LeaseExpiresAt: "lease_expires_at",
		CorrelationID:  "correlation_id",
	}
}

// identifier is the rule of the server's configuration for mapped names.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pairs lists the default name and the mapped name of every entry, with
// the field name for an error message.
func (s Schema) pairs() [][3]string {
	d := DefaultSchema()
	return [][3]string{
		{"Table", d.Table, s.Table},
		{"ID", d.ID, s.ID},
		{"Source", d.Source, s.Source},
		{"IdempotencyKey", d.IdempotencyKey, s.IdempotencyKey},
		{"AggregateID", d.AggregateID, s.AggregateID},
		{"EventType", d.EventType, s.EventType},
		{"Payload", d.Payload, s.Payload},
		{"Headers", d.Headers, s.Headers},
		{"State", d.State, s.State},
		{"Consumption", d.Consumption, s.Consumption},
		{"Attempt", d.Attempt, s.Attempt},
		{"LastError", d.LastError, s.LastError},
		{"ScheduledAt", d.ScheduledAt, s.ScheduledAt},
		{"CreatedAt", d.CreatedAt, s.CreatedAt},
		{"ProcessedAt", d.ProcessedAt, s.ProcessedAt},
		{"ClaimedAt", d.ClaimedAt, s.ClaimedAt},
		{"ClaimToken", d.ClaimToken, s.ClaimToken},
		{"LeaseExpiresAt", d.LeaseExpiresAt, s.LeaseExpiresAt},
		{"CorrelationID", d.CorrelationID, s.CorrelationID},
	}
}

// validate reports every name that is not a plain identifier, and two
// columns mapped to one name.
func (s Schema) validate() []error {
	var errs []error
	seen := map[string]string{}
	for i, p := range s.pairs() {
		field, name := p[0], p[2]
		if !identifier.MatchString(name) {
			errs = append(errs, fmt.Errorf("the name of Schema.%s, %q, is not a plain SQL identifier (letters, digits and underscores, not starting with a digit)", field, name))
			continue
		}
		if i == 0 {
			continue // the table shares no namespace with the columns
		}
		if other, ok := seen[name]; ok {
			errs = append(errs, fmt.Errorf("the name of Schema.%s, %q, is also the name of Schema.%s", field, name, other))
		}
		seen[name] = field
	}
	return errs
}

// quoted maps each default name to the quoted mapped name of the dialect.
func (s Schema) quoted(d Dialect) map[string]string {
	out := map[string]string{}
	for _, p := range s.pairs() {
		out[p[1]] = d.quote(p[2])
	}
	return out
}
