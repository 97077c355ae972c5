package sqlserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/leaseclock"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
	"github.com/alternayte/queuebox/pkg/store/internal/walk"
)

// Relay is the relay side of the inbox: the serialized push claim and the
// fenced forward into the outbox. It is safe for concurrent use and holds
// no connection of its own.
type Relay struct {
	db      *DB
	lease   time.Duration
	opts    leaseclock.Options
	lockKey string
	sources string // the JSON array of the sources whose rows the claim takes
	// maxAttempts ends a row whose relay claims keep expiring; 0: never.
	maxAttempts int

	claimKeyedFirst, claimUnkeyedFirst          string
	lock, forward, dead, renew, reclaim, oldest string

	walk walk.Walk
}

// NewRelay renders the relay statements for p (see queuebox.RelayParams).
func NewRelay(db *DB, l schema.Layout, p queuebox.RelayParams, opts ...Option) (*Relay, error) {
	sources, err := json.Marshal(append([]string{}, p.Sources...))
	if err != nil {
		return nil, fmt.Errorf("encode relay sources: %w", err)
	}
	r := &Relay{db: db, lease: p.Lease, lockKey: "queuebox_inbox_claim_" + l.InboxTable, sources: string(sources),
		maxAttempts: p.MaxAttempts, opts: leaseclock.New(opts)}
	if err := renderAll(claimData{l, true}, map[*string]string{&r.claimKeyedFirst: "inbox_relay_claim"}); err != nil {
		return nil, err
	}
	err = renderAll(claimData{l, false}, map[*string]string{&r.claimUnkeyedFirst: "inbox_relay_claim"})
	if err == nil {
		err = renderAll(l, map[*string]string{
			&r.lock: "inbox_relay_lock", &r.forward: "inbox_relay_forward", &r.dead: "inbox_relay_dead",
			&r.renew: "inbox_relay_renew", &r.reclaim: "inbox_relay_reclaim", &r.oldest: "inbox_oldest_pending",
		})
	}
	return r, err
}

var _ queuebox.RelayStore = (*Relay)(nil)

// Claim takes up to limit pending push rows of the configured sources
// in one transaction that first takes the exclusive application lock
// queuebox_inbox_claim_<table> (inbox_relay_lock.sql): at most one row
// per aggregate in flight across every relay, each aggregate in
// created_at order. The commit releases the lock before any forward.
func (r *Relay) Claim(ctx context.Context, limit int) ([]queuebox.InboxRow, error) {
	cursor, stmt := r.walk.Pick(r.claimKeyedFirst, r.claimUnkeyedFirst)
	var out []queuebox.InboxRow
	err := r.db.withTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, r.lock, r.lockKey); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, stmt, limit, r.lease.Milliseconds(), r.sources, r.opts.Clock(), cursor.Key)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanInboxRow)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim inbox rows for the relay: %w", err)
	}
	lanes := make([]walk.Lane, 0, len(out))
	for _, row := range out {
		if row.AggregateID != nil {
			lanes = append(lanes, walk.Lane{Key: *row.AggregateID})
		}
	}
	r.walk.Advance(cursor, lanes)
	return out, nil
}

// scanInboxRow maps one OUTPUT row of inbox_relay_claim.sql.
func scanInboxRow(rows *sql.Rows) (queuebox.InboxRow, error) {
	var x queuebox.InboxRow
	var agg, event, corr sql.NullString
	err := rows.Scan(&x.ID, &x.Source, &x.IdempotencyKey, &agg, &event, &x.Headers, &corr, &x.CreatedAt, &x.ClaimToken)
	x.AggregateID, x.EventType, x.CorrelationID = nullable(agg), nullable(event), nullable(corr)
	x.CreatedAt = x.CreatedAt.UTC()
	return x, err
}

func nullable(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// Forward marks the rows processed and inserts their outbox rows in one
// transaction. It returns the ids whose fence held; a missing id lost its
// claim and got no outbox row.
func (r *Relay) Forward(ctx context.Context, p queuebox.ForwardParams) (map[string]bool, error) {
	rows := make([]leaseRow, len(p.Rows))
	for i, f := range p.Rows {
		rows[i] = leaseRow{ID: f.Lease.ID, Token: f.Lease.Token, Topic: f.Topic, Headers: json.RawMessage(f.Headers)}
	}
	return r.db.queryIDs(ctx, "forward inbox rows", r.forward, jsonRows(rows), p.MaxAttempts, r.opts.Clock())
}

// Dead marks claimed rows dead with a reason, fenced, and returns the ids
// it changed; a missing id lost its claim.
func (r *Relay) Dead(ctx context.Context, marks []queuebox.DeadMark) (map[string]bool, error) {
	rows := make([]leaseRow, len(marks))
	for i, m := range marks {
		reason := m.Reason
		rows[i] = leaseRow{ID: m.Lease.ID, Token: m.Lease.Token, Error: &reason}
	}
	return r.db.queryIDs(ctx, "mark inbox rows dead", r.dead, jsonRows(rows), r.opts.Clock())
}

// Renew extends the leases still held and returns their ids; it is safe
// to repeat.
func (r *Relay) Renew(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
	return r.db.queryIDs(ctx, "renew relay leases", r.renew, jsonRows(leaseRows(leases)),
		r.lease.Milliseconds(), r.opts.Clock())
}

// Reclaim returns push rows whose lease ended before now to pending (or
// dead at RelayParams.MaxAttempts) and says how many.
func (r *Relay) Reclaim(ctx context.Context) (int64, error) {
	return r.db.execCount(ctx, "reclaim expired relay claims", r.reclaim, r.opts.Clock(), r.maxAttempts)
}

// OldestPendingAge returns the age of the oldest pending row by the
// database clock, or zero when no row is pending.
func (r *Relay) OldestPendingAge(ctx context.Context) (time.Duration, error) {
	var age sql.NullFloat64
	err := r.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, r.oldest).Scan(&age)
	})
	if err != nil || !age.Valid {
		return 0, err
	}
	return rowcodec.Seconds(age.Float64), nil
}
