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

// Relay is the relay side of the inbox: the serialized push claim and the
// fenced forward into the outbox. It is safe for concurrent use and holds
// no connection of its own. Every method's statement is cancelled when
// its ctx ends; a write whose answer is lost (an error) has an unknown
// fate, and the fence makes a later try by the same token harmless.
type Relay struct {
	db      *DB
	lease   time.Duration
	opts    leaseclock.Options
	lockKey string
	sources []string // the sources whose rows the claim takes
	// maxAttempts ends a row whose relay claims keep expiring; 0: never.
	maxAttempts int

	claimKeyedFirst, claimUnkeyedFirst          string
	lock, forward, dead, renew, reclaim, oldest string

	walk walk.Walk
	// floor bounds the scans of rows without an aggregate (see package
	// scanfloor).
	floor scanfloor.Floor
	// hints are where the walk of the aggregates probes each aggregate it
	// hints (the created_at of the last head claimed there; see package
	// lanehint).
	hints *lanehint.Hints[time.Time]
	// oldestUnkeyed and oldestActive are the checks beside the claims
	// that lower floor and the hints' bound (active_check.go);
	// oldestActive is "" on an inbox without partitions.
	oldestUnkeyed, oldestActive string
}

// NewRelay renders the relay statements for p (see queuebox.RelayParams).
func NewRelay(db *DB, l schema.Layout, p queuebox.RelayParams, opts ...Option) (*Relay, error) {
	r := &Relay{db: db, lease: p.Lease, lockKey: "queuebox_inbox_claim_" + l.InboxTable, sources: p.Sources,
		maxAttempts: p.MaxAttempts, opts: leaseclock.New(opts), hints: lanehint.New(time.Time.After)}
	if err := renderAll(claimData{l, true}, map[*string]string{&r.claimKeyedFirst: "inbox_relay_claim"}); err != nil {
		return nil, err
	}
	err := renderAll(claimData{l, false}, map[*string]string{&r.claimUnkeyedFirst: "inbox_relay_claim"})
	if err == nil {
		err = renderAll(l, map[*string]string{
			&r.lock: "inbox_relay_lock", &r.forward: "inbox_relay_forward", &r.dead: "inbox_relay_dead",
			&r.renew: "inbox_relay_renew", &r.reclaim: "inbox_relay_reclaim", &r.oldest: "inbox_oldest_pending",
		})
	}
	if err == nil {
		err = renderAll(l, map[*string]string{&r.oldestUnkeyed: "inbox_relay_oldest_unkeyed"})
	}
	if err == nil && l.Partitioned {
		err = renderAll(l, map[*string]string{&r.oldestActive: "inbox_oldest_active"})
	}
	r.floor.CheckBeside()
	return r, err
}

var _ queuebox.RelayStore = (*Relay)(nil)

// startChecks starts the checks beside the claims that are due at start
// (see active_check.go).
func (r *Relay) startChecks(start time.Time) {
	if r.floor.StartCheck(start) {
		r.db.checkBeside(r.opts.Now, r.oldestUnkeyed, []any{r.sources},
			func(at time.Time, took time.Duration, read *time.Time) { r.floor.Checked(at, took, orZero(read)) })
	}
	if r.oldestActive != "" && r.hints.StartActiveCheck(start) {
		r.db.checkBeside(r.opts.Now, r.oldestActive, nil, r.hints.ActiveChecked)
	}
}

// Claim takes up to limit pending push rows of the configured sources
// under the relay lock (inbox_relay_lock.sql): at most one row per
// aggregate in flight across every relay, each aggregate in created_at
// order. Successive claims walk the aggregates from where the last one
// stopped (see walk).
func (r *Relay) Claim(ctx context.Context, limit int) ([]queuebox.InboxRow, error) {
	cursor, stmt := r.walk.Pick(r.claimKeyedFirst, r.claimUnkeyedFirst)
	start := r.opts.Now()
	bound := r.floor.Next(start)
	plan := r.hints.Next(start)
	r.startChecks(start)
	var (
		out  []queuebox.InboxRow
		seen lanehint.Seen[time.Time]
		took time.Duration // the statement's, not the wait for the relay lock
	)
	// A repeat after a broken connection is safe: a broken try whose claim
	// committed leaves its rows to the reclaim step, as any lost answer does.
	began := time.Now()
	err := r.db.withClaimTx(ctx, repeatable, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, r.lock, r.lockKey); err != nil {
			return err
		}
		t0 := time.Now()
		rows, err := tx.Query(ctx, stmt, limit, r.lease.Milliseconds(), r.sources, r.opts.Clock(), cursor.Key, bound,
			rowcodec.ArrayLiteral(plan.Keys()), plan.Places, plan.Count, plan.ActiveFrom)
		if err != nil {
			return err
		}
		seen = lanehint.Seen[time.Time]{}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (queuebox.InboxRow, error) {
			var x queuebox.InboxRow
			err := row.Scan(&x.ID, &x.Source, &x.IdempotencyKey, &x.AggregateID, &x.EventType,
				&x.Headers, &x.CorrelationID, &x.CreatedAt, &x.ClaimToken, &seen.Count, &seen.Active)
			return x, err
		})
		took = time.Since(t0)
		return err
	})
	if err != nil {
		r.floor.Failed(bound, start, time.Since(began))
		r.hints.Failed(plan, start, time.Since(began))
		return nil, fmt.Errorf("claim inbox rows for the relay: %w", err)
	}
	var oldest time.Time
	lanes := make([]walk.Lane, 0, len(out))
	for _, row := range out {
		switch {
		case row.AggregateID != nil:
			lanes = append(lanes, walk.Lane{Key: *row.AggregateID})
			seen.Taken = append(seen.Taken, lanehint.Taken[time.Time]{Lane: lanehint.Lane{Key: *row.AggregateID}, Place: row.CreatedAt})
		case oldest.IsZero() || row.CreatedAt.Before(oldest):
			oldest = row.CreatedAt
		}
	}
	r.floor.Done(bound, start, took, oldest)
	r.hints.Done(plan, start, took, seen)
	r.walk.Advance(cursor, lanes)
	return out, nil
}

// Forward marks the rows processed and inserts their outbox rows in one
// statement. It returns the ids whose fence held; a missing id lost its
// claim and got no outbox row.
func (r *Relay) Forward(ctx context.Context, p queuebox.ForwardParams) (map[string]bool, error) {
	n := len(p.Rows)
	ids, tokens, topics := make([]string, n), make([]string, n), make([]string, n)
	headers := make([]string, n)
	for i, f := range p.Rows {
		ids[i], tokens[i], topics[i], headers[i] = f.Lease.ID, f.Lease.Token, f.Topic, string(f.Headers)
	}
	return r.db.queryIDs(ctx, once, "forward inbox rows", r.forward, ids, tokens, topics, headers, p.MaxAttempts, r.opts.Clock())
}

// Dead marks claimed rows dead with a reason, fenced, and returns the ids
// it changed; a missing id lost its claim.
func (r *Relay) Dead(ctx context.Context, marks []queuebox.DeadMark) (map[string]bool, error) {
	ids, tokens, reasons := make([]string, len(marks)), make([]string, len(marks)), make([]string, len(marks))
	for i, m := range marks {
		ids[i], tokens[i], reasons[i] = m.Lease.ID, m.Lease.Token, m.Reason
	}
	return r.db.queryIDs(ctx, once, "mark inbox rows dead", r.dead, ids, tokens, reasons, r.opts.Clock())
}

// Renew extends the leases still held and returns their ids; it is safe
// to repeat.
func (r *Relay) Renew(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
	ids, tokens := rowcodec.SplitLeases(leases)
	return r.db.queryIDs(ctx, repeatable, "renew relay leases", r.renew, ids, tokens, r.lease.Milliseconds(), r.opts.Clock())
}

// Reclaim returns push rows whose lease ended before now to pending
// (pull rows are the pull claim's) and says how many; it is safe to
// repeat.
func (r *Relay) Reclaim(ctx context.Context) (int64, error) {
	n, err := r.db.execCount(ctx, repeatable, "reclaim expired relay claims", r.reclaim, r.opts.Clock(), r.maxAttempts)
	if n > 0 {
		// The rows keep their created_at, which may be below the floor.
		r.floor.Reset()
	}
	return n, err
}

// OldestPendingAge returns the age of the oldest pending row by the
// database clock, or zero when no row is pending.
func (r *Relay) OldestPendingAge(ctx context.Context) (time.Duration, error) {
	var age *float64
	err := r.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, r.oldest).Scan(&age)
	})
	if err != nil || age == nil {
		return 0, err
	}
	return rowcodec.Seconds(*age), nil
}
