// Package wbsql holds what both dialects share of the workbench's
// statements: one view of the columns of either table, and the template
// data that turns a queuebox.MessageFilter into the conditions a
// statement renders. A statement renders only the conditions the filter
// sets, so each combination gets a plan of its own instead of one plan
// full of "parameter IS NULL OR" branches; the states are rendered as
// literals from the fixed set of each table, so the planner can match a
// partial index on the state (the dead-row indexes of V13).
package wbsql

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Cols are the quoted names of one table's columns that the workbench's
// shared statements use. Topic, Key, UpdatedAt, Destination and OriginID
// are outbox columns; Source and ProcessedAt inbox columns; Key is the
// inbox aggregate_id.
type Cols struct {
	Table, ID, State, Attempt, LastError, CreatedAt, ScheduledAt, DiscardedAt string
	ClaimedAt, ClaimToken, LeaseExpiresAt                                     string
	Topic, Key, UpdatedAt, Source, ProcessedAt                                string
	Destination, OriginID                                                     string
	// Lanes says the outbox has the lane columns (schema.Outbox.Lanes);
	// false for the inbox.
	Lanes bool
}

// ColsOf returns the columns of table t in layout l.
func ColsOf(l schema.Layout, t queuebox.Table) Cols {
	if t == queuebox.TableInbox {
		i := l.I
		return Cols{Table: i.Table, ID: i.ID, State: i.State, Attempt: i.Attempt, LastError: i.LastError,
			CreatedAt: i.CreatedAt, ScheduledAt: i.ScheduledAt, DiscardedAt: i.DiscardedAt, ClaimedAt: i.ClaimedAt,
			ClaimToken: i.ClaimToken, LeaseExpiresAt: i.LeaseExpiresAt, Key: i.AggregateID, Source: i.Source,
			ProcessedAt: i.ProcessedAt}
	}
	o := l.O
	return Cols{Table: o.Table, ID: o.ID, State: o.State, Attempt: o.Attempt, LastError: o.LastError,
		CreatedAt: o.CreatedAt, ScheduledAt: o.ScheduledAt, DiscardedAt: o.DiscardedAt, ClaimedAt: o.ClaimedAt,
		ClaimToken: o.ClaimToken, LeaseExpiresAt: o.LeaseExpiresAt, Topic: o.Topic, Key: o.Key, UpdatedAt: o.UpdatedAt,
		Destination: o.Destination, OriginID: o.OriginID, Lanes: o.Lanes}
}

// Data is the template data of a workbench statement: the layout, the
// table's columns, and which conditions of the filter to render.
type Data struct {
	schema.Layout
	T      Cols
	Outbox bool
	// States are the state literals to select; empty selects every state.
	States []string
	// Final are the literals of the table's final states.
	Final []string
	// Which filters are set. Destination, UnroutedTopics and Message are
	// outbox filters; UnroutedTopics only beside Destination.
	IDs, Topics, Source, Key, Error, After, Before, WithDiscarded bool
	Destination, UnroutedTopics, Message                          bool
	// Backfill selects the messages missing a delivery to the
	// destination (queuebox.MessageFilter.Backfill); AddMissing makes a
	// job step that finds no row left go on as a backfill.
	Backfill, AddMissing bool
	// Cursor says that the statement starts after a cursor.
	Cursor bool
	// Jobs is the quoted replay jobs table.
	Jobs string
	// Pauses is the quoted destination pauses table.
	Pauses string
}

// NewData validates f and returns the data of its statements. States
// outside the table's set are refused (the caller validated them; this
// is the second check that keeps a literal out of the SQL).
func NewData(l schema.Layout, f queuebox.MessageFilter) (Data, error) {
	all := f.Table.States()
	if all == nil {
		return Data{}, fmt.Errorf("unknown table %q", f.Table)
	}
	d := Data{Layout: l, T: ColsOf(l, f.Table), Outbox: f.Table == queuebox.TableOutbox,
		IDs: f.IDs != nil, Topics: f.Topics != nil && f.Table == queuebox.TableOutbox, Source: f.Source != "",
		Key: f.Key != "", Error: f.Error != "", After: f.CreatedAfter != nil, Before: f.CreatedBefore != nil,
		WithDiscarded: f.WithDiscarded, Destination: f.Destination != "" && f.Table == queuebox.TableOutbox,
		Message: f.Message != "" && f.Table == queuebox.TableOutbox, Jobs: l.Dialect.Quote(schema.ReplayJobsTable),
		Pauses: l.Dialect.Quote(schema.DestinationPausesTable)}
	d.UnroutedTopics = d.Destination && len(f.UnroutedTopics) > 0
	d.Backfill = d.Destination && f.Backfill
	if d.Backfill && !d.T.Lanes {
		return Data{}, fmt.Errorf("add deliveries to %s: %w", f.Destination, queuebox.ErrNoLanes)
	}
	d.AddMissing = d.Destination && f.AddMissing && !f.Backfill && d.T.Lanes
	for _, s := range f.States {
		if !slices.Contains(all, s) {
			return Data{}, fmt.Errorf("%q is no state of the %s table", s, f.Table)
		}
		if !slices.Contains(d.States, string(s)) {
			d.States = append(d.States, string(s))
		}
	}
	for _, s := range f.Table.FinalStates() {
		d.Final = append(d.Final, string(s))
	}
	return d, nil
}

// FinalOnly narrows the filter's states to the table's final states, as
// every move does: no filter may move a row that waits or runs. ok is
// false when nothing is left to select.
func FinalOnly(f queuebox.MessageFilter) (queuebox.MessageFilter, bool) {
	final := f.Table.FinalStates()
	if f.States == nil {
		f.States = final
		return f, true
	}
	var keep []queuebox.State
	for _, s := range f.States {
		if slices.Contains(final, s) {
			keep = append(keep, s)
		}
	}
	f.States = keep
	return f, len(keep) > 0
}

// CanMatch is false when a list filter is present but empty: it selects
// no row, so no statement need run.
func CanMatch(f queuebox.MessageFilter) bool {
	return (f.IDs == nil || len(f.IDs) > 0) &&
		(f.Table != queuebox.TableOutbox || f.Topics == nil || len(f.Topics) > 0)
}

// Cache renders each statement once per shape of its data. It is safe for
// concurrent use.
type Cache struct {
	render func(name string, data any) (string, error)
	m      sync.Map
}

// NewCache returns a cache over a dialect's render function.
func NewCache(render func(name string, data any) (string, error)) *Cache {
	return &Cache{render: render}
}

// Get returns the statement name rendered for d.
func (c *Cache) Get(name string, d Data) (string, error) {
	key := fmt.Sprintf("%s|%t|%v|%t%t%t%t%t%t%t%t|%t%t%t%t%t|%t", name, d.Outbox, d.States,
		d.IDs, d.Topics, d.Source, d.Key, d.Error, d.After, d.Before, d.WithDiscarded,
		d.Destination, d.UnroutedTopics, d.Message, d.Backfill, d.AddMissing, d.Cursor)
	if s, ok := c.m.Load(key); ok {
		return s.(string), nil
	}
	s, err := c.render(name, d)
	if err != nil {
		return "", err
	}
	c.m.Store(key, s)
	return s, nil
}

// MessageDest returns where the columns of a wb_list_* row of m.Table go
// in m, in the statements' order, and, when whole, those that wb_get_*
// adds: the payload and the headers go to the text they point at.
// Both dialects select the same columns in this order.
func MessageDest(m *queuebox.Message, whole bool, payload, headers *string) []any {
	if m.Table == queuebox.TableOutbox {
		dst := []any{&m.ID, &m.State, &m.Topic, &m.Key, &m.Attempt, &m.MaxAttempts, &m.LastError,
			&m.CreatedAt, &m.ScheduledAt, &m.UpdatedAt, &m.Sequence, &m.DiscardedAt, &m.Destination, &m.OriginID}
		if whole {
			dst = append(dst, payload, headers, &m.AggregateType, &m.ClaimedAt, &m.ClaimToken, &m.LeaseExpiry)
		}
		return dst
	}
	dst := []any{&m.ID, &m.State, &m.Source, &m.EventType, &m.AggregateID, &m.IdempotencyKey,
		&m.Consumption, &m.Attempt, &m.LastError, &m.CreatedAt, &m.ScheduledAt, &m.ProcessedAt, &m.DiscardedAt}
	if whole {
		dst = append(dst, payload, headers, &m.CorrelationID, &m.ClaimedAt, &m.ClaimToken, &m.LeaseExpiry)
	}
	return dst
}

// FinishMessage completes a scanned row: SentAt of a sent outbox row
// (its last change), and the payload and headers text when whole.
func FinishMessage(m *queuebox.Message, whole bool, payload, headers string) {
	if m.Table == queuebox.TableOutbox && m.State == queuebox.StateSent {
		at := m.UpdatedAt
		m.SentAt = &at
	}
	if whole {
		m.Payload, m.Headers = []byte(payload), []byte(headers)
	}
}

// NextCursor is the cursor after a page of limit rows asked for: past its
// last row when the page is full, nil (the last page) when it is not.
func NextCursor(t queuebox.Table, items []queuebox.Message, limit int) *queuebox.Cursor {
	if limit <= 0 || len(items) != limit {
		return nil
	}
	last := items[len(items)-1]
	if t == queuebox.TableInbox {
		return &queuebox.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return &queuebox.Cursor{Sequence: last.Sequence, ID: last.ID}
}

// NoID is the lowest id of either dialect's order of ids: the id an
// outbox cursor without one stands for, so that it starts after every
// row of its sequence, as the cursors made before the id joined them did.
const NoID = "00000000-0000-0000-0000-000000000000"

// OutboxCursorID is the id half of an outbox cursor, NoID when it has
// none.
func OutboxCursorID(c queuebox.Cursor) string {
	if c.ID == "" {
		return NoID
	}
	return c.ID
}

// DecodeJobFilter sets the filter of a scanned replay job from its
// stored JSON text and table column.
func DecodeJobFilter(job *queuebox.ReplayJob, table, filter string) error {
	if err := json.Unmarshal([]byte(filter), &job.Filter); err != nil {
		return fmt.Errorf("replay job %s has a filter that does not decode: %w", job.ID, err)
	}
	job.Filter.Table = queuebox.Table(table)
	return nil
}
