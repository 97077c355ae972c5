package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/leaseclock"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
	"github.com/alternayte/queuebox/pkg/store/internal/walk"
	"github.com/alternayte/queuebox/pkg/store/lanehint"
	"github.com/alternayte/queuebox/pkg/store/scanfloor"
)

// Option configures a store at construction (see WithClock).
type Option = leaseclock.Option

// WithClock makes the lease statements read the time from now instead of
// the database clock; nil keeps the database clock (see
// leaseclock.WithClock).
func WithClock(now func() time.Time) Option { return leaseclock.WithClock(now) }

// Outbox is the outbox side of the store: the claim protocol of the poller.
// It is safe for concurrent use; it holds no connection of its own, so the
// DB's owner closes what it uses.
type Outbox struct {
	db    *DB
	lease time.Duration
	opts  leaseclock.Options
	// lanes says the table has the lane columns (schema.Outbox.Lanes).
	lanes bool
	// ledger says the outcome write records each attempt in the delivery
	// ledger (schema.Ledger.Write), which takes six more parameters.
	ledger bool

	claimKeyedFirst, claimUnkeyedFirst   string
	finish, renew, reclaim, pendingStats string
	written, nextDue, postpone           string
	pauseRecord, unrouted, assign        string

	walk walk.Walk
	// floor bounds the scans of unkeyed rows, and routeFloor the scan of
	// keyed rows that wait for their destination (see package scanfloor).
	floor      scanfloor.Floor
	routeFloor scanfloor.Seq
	// hints are where the walk of the lanes probes each lane it hints
	// (the sequence of the last head claimed there; see package lanehint).
	// They also keep where a partitioned outbox's hinted claim starts its
	// probe of the oldest active row (see outbox_claim.sql).
	hints *lanehint.Hints[int64]
	// oldestUnkeyed and oldestActive are the checks beside the claims
	// that lower floor and the hints' bound (active_check.go);
	// oldestActive is "" on an outbox without partitions.
	oldestUnkeyed, oldestActive string
}

// NewOutbox renders the outbox statements for the layout. lease is
// outbox.claimTimeoutMs. Several Outbox values over one DB behave as
// several replicas: the database alone keeps them off each other's rows.
func NewOutbox(db *DB, l schema.Layout, lease time.Duration, opts ...Option) (*Outbox, error) {
	o := &Outbox{db: db, lease: lease, opts: leaseclock.New(opts), lanes: l.O.Lanes, ledger: l.Ledger.Write,
		hints: lanehint.New(func(a, b int64) bool { return a > b })}
	if err := renderAll(claimData{l, true}, map[*string]string{&o.claimKeyedFirst: "outbox_claim"}); err != nil {
		return nil, err
	}
	err := renderAll(claimData{l, false}, map[*string]string{&o.claimUnkeyedFirst: "outbox_claim"})
	if err == nil {
		err = renderAll(l, map[*string]string{
			&o.finish: "outbox_finish", &o.written: "outbox_written",
			&o.renew: "outbox_renew", &o.reclaim: "outbox_reclaim", &o.pendingStats: "outbox_pending_stats",
			&o.nextDue: "outbox_next_due", &o.postpone: "outbox_postpone",
			&o.unrouted: "outbox_unrouted", &o.assign: "outbox_assign",
		})
	}
	if err == nil {
		err = renderAll(pauseData{l.Dialect.Quote(schema.DestinationPausesTable)},
			map[*string]string{&o.pauseRecord: "destination_pause_record"})
	}
	if err == nil {
		err = renderAll(l, map[*string]string{&o.oldestUnkeyed: "outbox_oldest_unkeyed"})
	}
	if err == nil && l.Partitioned {
		err = renderAll(l, map[*string]string{&o.oldestActive: "outbox_oldest_active"})
	}
	o.floor.CheckBeside()
	return o, err
}

var (
	_ queuebox.OutboxStore   = (*Outbox)(nil)
	_ queuebox.NextDuer      = (*Outbox)(nil)
	_ queuebox.Postponer     = (*Outbox)(nil)
	_ queuebox.PauseRecorder = (*Outbox)(nil)
)

// Claim takes up to limit due rows under new tokens and leases: the head
// of each lane (key and destination; the lowest sequence among the lane's
// pending and processing rows) and unkeyed rows, never a row another
// claim holds. A claim whose connection
// broke is tried again (its rows, if it had committed, return through the
// reclaim step). When ctx ends, the statement is cancelled and no row is
// returned; a claim that committed anyway is reclaimed after its lease.
func (o *Outbox) Claim(ctx context.Context, limit int) ([]queuebox.ClaimedMessage, error) {
	cursor, stmt := o.walk.Pick(o.claimKeyedFirst, o.claimUnkeyedFirst)
	start := o.opts.Now()
	bound := o.floor.Next(start)
	plan := o.hints.Next(start)
	o.startChecks(start)
	args := append([]any{limit, cursor.Key, o.lease.Milliseconds(), o.opts.Clock(), cursor.Destination, bound},
		arrayLiterals([]any{plan.Keys(), plan.Destinations(), plan.Places})...)
	args = append(args, plan.Count, plan.ActiveFrom)

	var (
		out    []queuebox.ClaimedMessage
		oldest time.Time
		seen   lanehint.Seen[int64]
		took   time.Duration // the statement's, not the wait for a connection
	)
	// A repeat after a broken connection is safe: a broken try whose claim
	// committed leaves its rows to the reclaim step, as any lost answer does.
	began := time.Now()
	err := o.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		t0 := time.Now()
		oldest, seen = time.Time{}, lanehint.Seen[int64]{}
		err := queryClaim(ctx, conn, func(rows pgx.Rows) error {
			var err error
			out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (queuebox.ClaimedMessage, error) {
				m, due, err := scanMessage(row, &seen)
				if err == nil && m.Key == "" && (oldest.IsZero() || due.Before(oldest)) {
					oldest = due
				}
				return m, err
			})
			return err
		}, stmt, args...)
		took = time.Since(t0)
		return err
	})
	if err != nil {
		o.floor.Failed(bound, start, time.Since(began))
		o.hints.Failed(plan, start, time.Since(began))
		return nil, fmt.Errorf("claim outbox rows: %w", err)
	}
	o.floor.Done(bound, start, took, oldest)
	lanes := make([]walk.Lane, 0, len(out))
	for _, m := range out {
		lanes = append(lanes, walk.Lane{Key: m.Key, Destination: m.Destination})
		if m.Key != "" {
			seen.Taken = append(seen.Taken, lanehint.Taken[int64]{
				Lane: lanehint.Lane{Key: m.Key, Destination: m.Destination}, Place: m.Sequence})
		}
	}
	o.hints.Done(plan, start, took, seen)
	o.walk.Advance(cursor, lanes)
	return out, nil
}

// startChecks starts the checks beside the claims that are due at start
// (see active_check.go).
func (o *Outbox) startChecks(start time.Time) {
	if o.floor.StartCheck(start) {
		o.db.checkBeside(o.opts.Now, o.oldestUnkeyed, []any{o.opts.Clock()},
			func(at time.Time, took time.Duration, read *time.Time) { o.floor.Checked(at, took, orZero(read)) })
	}
	if o.oldestActive != "" && o.hints.StartActiveCheck(start) {
		o.db.checkBeside(o.opts.Now, o.oldestActive, nil, o.hints.ActiveChecked)
	}
}

// scanMessage maps one row of outbox_claim.sql to a claimed message and
// the row's scheduled_at, which the claim's scan floor reads; it stores
// in seen the requeue count and the oldest active created_at (NULL on an
// outbox without partitions) that the statement read, for the lane hints.
func scanMessage(row pgx.CollectableRow, seen *lanehint.Seen[int64]) (queuebox.ClaimedMessage, time.Time, error) {
	var (
		m                      queuebox.OutboxMessage
		key, aggType, origin   *string
		payload, headers, tokn string
		due                    time.Time
	)
	err := row.Scan(&m.ID, &m.Topic, &key, &aggType, &payload, &headers, &m.Attempt, &m.MaxAttempts,
		&m.CreatedAt, &m.Sequence, &tokn, &m.Destination, &origin, &due, &seen.Count, &seen.Active)
	if err != nil {
		return queuebox.ClaimedMessage{}, due, err
	}
	if key != nil {
		m.Key, m.HasKey = *key, true
	}
	if aggType != nil {
		m.AggregateType = *aggType
	}
	if origin != nil {
		m.OriginID = *origin
	}
	m.Payload, m.ClaimToken = rowcodec.CompactJSON(payload), tokn
	m.Headers, err = rowcodec.DecodeHeaders(headers)
	return queuebox.ClaimedMessage{OutboxMessage: &m, HeadersErr: err}, due, nil
}

// Lanes implements queuebox.LaneStore.
func (o *Outbox) Lanes() bool { return o.lanes }
