package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/leaseclock"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
	"github.com/alternayte/queuebox/pkg/store/internal/walk"
)

// Outbox is the outbox side of the store: the claim protocol of the
// poller. It is safe for concurrent use; it holds no connection of its
// own, so the DB's owner closes what it uses.
type Outbox struct {
	db    *DB
	lease time.Duration
	opts  leaseclock.Options
	// lanes says the table has the lane columns (schema.Outbox.Lanes).
	lanes bool
	// ledger says the outcome write records each attempt in the delivery
	// ledger (schema.Ledger.Write), from the facts each row then carries.
	ledger  bool
	lockKey string

	claimKeyedFirst, claimUnkeyedFirst  string
	lock, finish, renew, reclaim, stats string
	written, nextDue, postpone          string
	pauseRecord, unrouted, assign       string

	walk walk.Walk
}

// NewOutbox renders the outbox statements for the layout. lease is
// outbox.claimTimeoutMs. Several Outbox values over one DB behave as
// several replicas: the claim lock and the row locks keep them apart.
func NewOutbox(db *DB, l schema.Layout, lease time.Duration, opts ...Option) (*Outbox, error) {
	o := &Outbox{db: db, lease: lease, opts: leaseclock.New(opts), lanes: l.O.Lanes, ledger: l.Ledger.Write, lockKey: "queuebox_outbox_claim_" + l.OutboxTable}
	if err := renderAll(claimData{l, true}, map[*string]string{&o.claimKeyedFirst: "outbox_claim"}); err != nil {
		return nil, err
	}
	err := renderAll(claimData{l, false}, map[*string]string{&o.claimUnkeyedFirst: "outbox_claim"})
	if err == nil {
		err = renderAll(l, map[*string]string{
			&o.lock: "outbox_claim_lock", &o.finish: "outbox_finish", &o.written: "outbox_written",
			&o.renew: "outbox_renew", &o.reclaim: "outbox_reclaim", &o.stats: "outbox_pending_stats",
			&o.nextDue: "outbox_next_due", &o.postpone: "outbox_postpone",
			&o.unrouted: "outbox_unrouted", &o.assign: "outbox_assign",
		})
	}
	if err == nil {
		err = renderAll(pauseData{l.Dialect.Quote(schema.DestinationPausesTable)},
			map[*string]string{&o.pauseRecord: "destination_pause_record"})
	}
	return o, err
}

var (
	_ queuebox.OutboxStore   = (*Outbox)(nil)
	_ queuebox.NextDuer      = (*Outbox)(nil)
	_ queuebox.Postponer     = (*Outbox)(nil)
	_ queuebox.PauseRecorder = (*Outbox)(nil)
)

// Claim takes up to limit due rows under new tokens and leases, in one
// transaction that first takes the exclusive application lock
// queuebox_outbox_claim_<table> (outbox_claim_lock.sql): the head of each
// lane (key and destination; the lowest sequence among the lane's pending
// and processing rows) and unkeyed rows, never a row another claim holds.
// A claim that lost a deadlock or waited past the lock's 10 s is tried
// again. When ctx ends, the transaction is rolled back and no row is
// returned.
func (o *Outbox) Claim(ctx context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	cursor, stmt := o.walk.Pick(o.claimKeyedFirst, o.claimUnkeyedFirst)
	var out []queuebox.ClaimedMessage
	err := o.db.withTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, o.lock, o.lockKey); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, stmt, limit, cursor.Key, o.lease.Milliseconds(), o.opts.Clock(),
			cursor.Destination)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanMessage)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim outbox rows: %w", err)
	}
	lanes := make([]walk.Lane, len(out))
	for i, m := range out {
		lanes[i] = walk.Lane{Key: m.Key, Destination: m.Destination}
	}
	o.walk.Advance(cursor, lanes)
	return out, nil
}

// collect reads every row with scan and closes rows.
func collect[T any](rows *sql.Rows, scan func(*sql.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanMessage maps one OUTPUT row of outbox_claim.sql to a claimed
// message. A headers column that holds no JSON object is reported on the
// message, not as an error, so the poller can dead-letter that row alone.
func scanMessage(rows *sql.Rows) (queuebox.ClaimedMessage, error) {
	var (
		m                    queuebox.OutboxMessage
		key, aggType, origin sql.NullString
		payload, heads       string
	)
	err := rows.Scan(&m.ID, &m.Topic, &key, &aggType, &payload, &heads, &m.Attempt, &m.MaxAttempts,
		&m.CreatedAt, &m.Sequence, &m.ClaimToken, &m.Destination, &origin)
	if err != nil {
		return queuebox.ClaimedMessage{}, err
	}
	m.Key, m.HasKey = key.String, key.Valid
	m.AggregateType, m.OriginID = aggType.String, origin.String
	m.CreatedAt = m.CreatedAt.UTC()
	m.Payload = rowcodec.CompactJSON(payload)
	m.Headers, err = rowcodec.DecodeHeaders(heads)
	return queuebox.ClaimedMessage{OutboxMessage: &m, HeadersErr: err}, nil
}

// Lanes implements queuebox.LaneStore.
func (o *Outbox) Lanes() bool { return o.lanes }
