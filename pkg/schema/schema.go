// Package schema turns the table and column names of a deployment (Names)
// into quoted identifiers and renders every SQL statement once, at start, from a
// statement template. No statement is built by hand in a query path.
package schema

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"text/template"
)

// Dialect is the SQL flavour of the database.
type Dialect int

// The supported dialects.
const (
	Postgres Dialect = iota
	SQLServer
)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Quote quotes a validated identifier for the dialect. The configuration
// already refuses names that are not identifiers; Quote checks again so
// that no path can carry SQL into a statement.
func (d Dialect) Quote(name string) string {
	if !identifier.MatchString(name) {
		panic(fmt.Sprintf("schema: %q is not a SQL identifier", name))
	}
	if d == SQLServer {
		return "[" + name + "]"
	}
	return `"` + name + `"`
}

// Outbox holds the quoted names of the outbox table and its columns.
type Outbox struct {
	Table          string
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
	Destination    string
	OriginID       string
	// Lanes says the table has the lane columns Destination and OriginID
	// (migration V16). A custom table made before them has not; the store
	// then orders by key alone and refuses fan-out.
	Lanes bool
	// DiscardedAt is the workbench's mark (migration V13). It has no
	// column mapping: a custom table adds it under this name.
	DiscardedAt string
}

// Inbox holds the quoted names of the inbox table and its columns.
type Inbox struct {
	Table          string
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
	// DiscardedAt is the workbench's mark (migration V13), as on the
	// outbox.
	DiscardedAt string
}

// DiscardedAtColumn is the column of both tables that marks a dead row an
// operator discarded (migration V13).
const DiscardedAtColumn = "discarded_at"

// ReplayJobsTable is the table of the workbench's replay jobs (migration
// V13). It is not renamed with the outbox and inbox tables.
const ReplayJobsTable = "queuebox_replay_jobs"

// DestinationPausesTable is the table where deliver replicas record the
// pauses of destinations for the workbench (migration V15). It is not
// renamed with the outbox and inbox tables.
const DestinationPausesTable = "queuebox_destination_pauses"

// LedgerTable is the table of the delivery ledger (migration V17), one
// row per attempt of an outbox row. It is not renamed with the outbox
// and inbox tables.
const LedgerTable = "outbox_attempts"

// RequeuesTable counts the statements that moved rows of a queue table
// back to pending (migration V18), so that the claims know when the
// hints they keep per lane may have gone wrong. It is not renamed with
// the outbox and inbox tables.
const RequeuesTable = "queuebox_requeues"

// Ledger is the delivery ledger of a layout. Statement templates see it
// as {{.Ledger.Table}} and {{if .Ledger.Write}}.
type Ledger struct {
	// Table is the quoted name of the ledger's table; empty when the
	// database has none (not yet migrated to V17), and then nothing reads
	// or writes the ledger.
	Table string
	// Write says the outbox's outcome write records each attempt in the
	// ledger (outbox.ledger.enabled). It is false whenever Table is empty.
	Write bool
}

// Layout is the table layout of one deployment. Statement templates see it
// as their data: {{.O.Table}}, {{.O.Topic}}, {{.I.IdempotencyKey}}.
type Layout struct {
	Dialect Dialect
	O       Outbox
	I       Inbox
	// Raw names, unquoted, for messages and catalog lookups.
	OutboxTable string
	InboxTable  string
	// Partitioned says both tables are range-partitioned by created_at
	// (database.partitioning.enabled): the inbox then keeps its
	// idempotency keys unique without a unique index.
	Partitioned bool
	// Ledger is the delivery ledger. New gives it its table, written; the
	// start turns it off when the database lacks the table, and the store
	// factory stops its writes when the configuration does.
	Ledger Ledger
	// Requeues is the quoted requeue counts table (RequeuesTable), empty
	// when the database has none (not yet migrated to V18): the moves back
	// to pending then count nothing and the claims keep no hints.
	Requeues string
}

// WithoutLedger returns l with the ledger's writes off: the outcome write
// is then the statement it was before the ledger.
func (l Layout) WithoutLedger() Layout {
	l.Ledger.Write = false
	return l
}

// New builds the layout of the names n in dialect d. It panics on a name
// that is not an identifier (see Quote).
func New(d Dialect, n Names) Layout {
	q := d.Quote
	o, i := n.Outbox, n.Inbox
	return Layout{
		Dialect:     d,
		Partitioned: n.Partitioned,
		Ledger:      Ledger{Table: q(LedgerTable), Write: true},
		Requeues:    q(RequeuesTable),
		OutboxTable: n.OutboxTable,
		InboxTable:  n.InboxTable,
		O: Outbox{
			Table: q(n.OutboxTable), ID: q(o.ID), Topic: q(o.Topic), Key: q(o.Key),
			AggregateType: q(o.AggregateType), Payload: q(o.Payload), Headers: q(o.Headers),
			State: q(o.State), Attempt: q(o.Attempt), MaxAttempts: q(o.MaxAttempts),
			ScheduledAt: q(o.ScheduledAt), CreatedAt: q(o.CreatedAt), UpdatedAt: q(o.UpdatedAt),
			ClaimedAt: q(o.ClaimedAt), ClaimToken: q(o.ClaimToken), LeaseExpiresAt: q(o.LeaseExpiresAt),
			LastError: q(o.LastError), Sequence: q(o.Sequence), DiscardedAt: q(DiscardedAtColumn),
			Destination: q(o.Destination), OriginID: q(o.OriginID), Lanes: true,
		},
		I: Inbox{
			Table: q(n.InboxTable), ID: q(i.ID), Source: q(i.Source),
			IdempotencyKey: q(i.IdempotencyKey), AggregateID: q(i.AggregateID), EventType: q(i.EventType),
			Payload: q(i.Payload), State: q(i.State), CreatedAt: q(i.CreatedAt), ProcessedAt: q(i.ProcessedAt),
			ClaimedAt: q(i.ClaimedAt), ClaimToken: q(i.ClaimToken), LeaseExpiresAt: q(i.LeaseExpiresAt),
			CorrelationID: q(i.CorrelationID), Consumption: q(i.Consumption), ScheduledAt: q(i.ScheduledAt),
			Attempt: q(i.Attempt), LastError: q(i.LastError), Headers: q(i.Headers), DiscardedAt: q(DiscardedAtColumn),
		},
	}
}

// Render renders one statement template against the layout. Templates are
// fixed text shipped with the binary, so an error is a programming fault;
// callers render every statement at start and fail the start on error.
func (l Layout) Render(name, text string) (string, error) {
	return RenderData(name, text, l)
}

// RenderData renders a statement template against any data that embeds
// the layout, for statements with variants ({{if .Flag}}). It sees no
// partials; Partials.Render does.
func RenderData(name, text string, data any) (string, error) {
	return (*Partials)(nil).Render(name, text, data)
}

// funcs are the functions every statement template may call.
var funcs = template.FuncMap{"args": args}

// args builds the data of a partial from name and value pairs, so one
// {{template}} call can hand a partial several values:
// {{template "fence" args "T" .O "A" "o"}} gives it .T and .A.
func args(pairs ...any) (map[string]any, error) {
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("args wants name and value pairs, got %d values", len(pairs))
	}
	m := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		name, ok := pairs[i].(string)
		if !ok {
			return nil, fmt.Errorf("args: name %v is no string", pairs[i])
		}
		m[name] = pairs[i+1]
	}
	return m, nil
}

// Partials are the shared pieces of a dialect's statements: named
// templates ({{define "fence"}} ... {{end}}) that a statement includes
// with {{template "fence" ...}}, so SQL that several statements share is
// written once. A Partials is read-only after ParsePartials and safe for
// concurrent use; the nil *Partials has none.
type Partials struct {
	set *template.Template
}

// ParsePartials parses texts, each a file of {{define}} blocks. Text
// outside the blocks (comments) renders nowhere.
func ParsePartials(texts ...string) (*Partials, error) {
	set := template.New("partials").Funcs(funcs).Option("missingkey=error")
	for i, text := range texts {
		if _, err := set.New(fmt.Sprintf("partials %d", i)).Parse(text); err != nil {
			return nil, fmt.Errorf("parse partials: %w", err)
		}
	}
	return &Partials{set: set}, nil
}

// Render renders one statement template against data (the layout, or a
// value that embeds it), with the partials in reach.
func (p *Partials) Render(name, text string, data any) (string, error) {
	var tmpl *template.Template
	if p == nil {
		tmpl = template.New(name).Funcs(funcs).Option("missingkey=error")
	} else {
		clone, err := p.set.Clone()
		if err != nil {
			return "", fmt.Errorf("parse statement %s: %w", name, err)
		}
		tmpl = clone.New(name)
	}
	if _, err := tmpl.Parse(text); err != nil {
		return "", fmt.Errorf("parse statement %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return "", fmt.Errorf("render statement %s: %w", name, err)
	}
	return strings.TrimSpace(buf.String()), nil
}
