package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// Finish writes many outcomes in one fenced statement and returns the ids
// it changed. An id missing from the answer lost its claim (another token
// or an expired lease). It runs once: after an error the statement's fate
// is unknown, and the caller tries again with FinishAgain. When ctx ends,
// the statement is cancelled with the same unknown fate.
func (o *Outbox) Finish(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	n := len(outcomes)
	ids, tokens, kinds, errs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	delays, dests := make([]int64, n), make([]string, n)
	for i, oc := range outcomes {
		ids[i], tokens[i], kinds[i], errs[i] = oc.Lease.ID, oc.Lease.Token, string(oc.Kind), oc.Error
		delays[i], dests[i] = oc.Delay.Milliseconds(), oc.Destination
	}
	args := []any{ids, tokens, kinds, delays, errs, o.opts.Clock(), dests}
	if o.ledger {
		args = append(args, rowcodec.AttemptColumns(outcomes)...)
	}
	return o.db.queryIDs(ctx, once, "finish outbox rows", o.finish, args...)
}

// FinishAgain is Finish for a later try of the same outcomes, after a try
// that failed: an earlier try may have committed before its answer was
// lost, so a row whose fence fails now but that already shows its outcome
// under its claim token counts as written, not as a lost claim. The
// confirming read is safe to repeat on another connection.
func (o *Outbox) FinishAgain(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	return rowcodec.FinishAgain(ctx, outcomes, o.Finish, o.confirm)
}

// confirm finds the outcomes that an earlier try wrote; safe to repeat.
func (o *Outbox) confirm(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	var ids, tokens, kinds, errs []string
	for _, oc := range outcomes {
		ids, tokens = append(ids, oc.Lease.ID), append(tokens, oc.Lease.Token)
		kinds, errs = append(kinds, string(oc.Kind)), append(errs, oc.Error)
	}
	return o.db.queryIDs(ctx, repeatable, "confirm outbox outcomes", o.written, ids, tokens, kinds, errs)
}

// Renew extends the leases still held (their token, a live lease) by the
// store's lease and returns their ids; a missing id lost its claim. It is
// safe to repeat, so a broken idle connection costs it nothing. When ctx
// ends, it returns an error and the leases keep their old expiry.
func (o *Outbox) Renew(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
	ids, tokens := rowcodec.SplitLeases(leases)
	return o.db.queryIDs(ctx, repeatable, "renew outbox leases", o.renew, ids, tokens, o.lease.Milliseconds(), o.opts.Clock())
}

// Reclaim returns processing rows whose lease ended before now to
// pending and says how many; a row another statement holds is skipped
// for the next step, never waited on. It is safe to repeat.
func (o *Outbox) Reclaim(ctx context.Context) (int64, error) {
	n, err := o.db.execCount(ctx, repeatable, "reclaim expired outbox claims", o.reclaim, o.opts.Clock())
	if n > 0 {
		// The rows keep their scheduled_at, which may be below the floor.
		o.floor.Reset()
	}
	return n, err
}

// NextDue implements queuebox.NextDuer: the wait until the earliest
// pending row scheduled later than since before now falls due, by the
// clock the claims use (the database's, or the test clock of WithClock),
// so the poller wakes for a retry instead of at its next poll tick. It is
// safe to repeat.
func (o *Outbox) NextDue(ctx context.Context, since time.Duration) (time.Duration, bool, error) {
	var ms *int64
	err := o.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, o.nextDue, o.opts.Clock(), max(since, 0).Microseconds()).Scan(&ms)
	})
	if err != nil {
		return 0, false, fmt.Errorf("read the next due outbox row: %w", err)
	}
	if ms == nil {
		return 0, false, nil
	}
	return time.Duration(*ms) * time.Millisecond, true, nil
}

// Pending reads the pending rows per topic and the age of the oldest, by
// the database clock (the test clock of WithClock does not move it).
func (o *Outbox) Pending(ctx context.Context) (queuebox.PendingStats, error) {
	var st queuebox.PendingStats
	err := o.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		st = queuebox.PendingStats{ByTopic: map[string]int64{}, ByDestination: map[string]int64{}, Unrouted: map[string]int64{}}
		rows, err := conn.Query(ctx, o.pendingStats)
		if err != nil {
			return err
		}
		var topic, dest string
		var count int64
		var ageSeconds float64
		_, err = pgx.ForEachRow(rows, []any{&topic, &dest, &count, &ageSeconds}, func() error {
			st.Add(topic, dest, count)
			st.OldestAge = max(st.OldestAge, rowcodec.Seconds(ageSeconds))
			return nil
		})
		return err
	})
	if err != nil {
		return queuebox.PendingStats{}, fmt.Errorf("read pending outbox rows: %w", err)
	}
	return st, nil
}

// queryIDs runs a statement that returns one id per changed row, the shape
// of every fenced write, and collects the ids. A []string or []int64
// argument (the columns of the rows written) goes as an array literal:
// see rowcodec.ArrayLiteral.
func (db *DB) queryIDs(ctx context.Context, r repeat, what, stmt string, args ...any) (map[string]bool, error) {
	args = arrayLiterals(args)
	var kept map[string]bool
	err := db.on(ctx, r, func(ctx context.Context, conn *pgxpool.Conn) error {
		kept = map[string]bool{}
		rows, err := conn.Query(ctx, stmt, args...)
		if err != nil {
			return err
		}
		var id string
		_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
			kept[id] = true
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return kept, nil
}

// Postpone implements queuebox.Postponer in one statement; with no topic
// routed to the destination it moves nothing and runs nothing.
func (o *Outbox) Postpone(ctx context.Context, p queuebox.PostponeParams) (int64, error) {
	if len(p.Topics) == 0 {
		return 0, nil
	}
	unrouted := p.UnroutedTopics
	if unrouted == nil {
		unrouted = []string{}
	}
	args := []any{p.Topics, p.Delay.Milliseconds(), o.opts.Clock()}
	if o.lanes {
		args = append(args, p.Destination, unrouted)
	}
	return o.db.execCount(ctx, repeatable, "postpone outbox rows", o.postpone, args...)
}

// Unrouted lists up to limit pending keyed rows without a destination,
// lowest sequence first. It locks nothing and is safe to repeat.
func (o *Outbox) Unrouted(ctx context.Context, limit int) ([]queuebox.UnroutedRow, error) {
	if !o.lanes {
		return nil, nil
	}
	start := o.opts.Now()
	bound := o.routeFloor.Next(start)
	var (
		out    []queuebox.UnroutedRow
		lowest int64 // the first row's sequence: they come lowest first
		some   bool
		took   time.Duration
	)
	began := time.Now()
	err := o.db.on(ctx, repeatable, func(ctx context.Context, conn *pgxpool.Conn) error {
		t0 := time.Now()
		some = false
		err := queryClaim(ctx, conn, func(rows pgx.Rows) error {
			var err error
			out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (queuebox.UnroutedRow, error) {
				var r queuebox.UnroutedRow
				var seq int64
				err := row.Scan(&r.ID, &r.Topic, &seq)
				if !some {
					lowest, some = seq, true
				}
				return r, err
			})
			return err
		}, o.unrouted, limit, bound)
		took = time.Since(t0)
		return err
	})
	if err != nil {
		o.routeFloor.Failed(bound, start, time.Since(began))
		return nil, fmt.Errorf("read unrouted outbox rows: %w", err)
	}
	o.routeFloor.Done(bound, start, took, lowest, some)
	return out, nil
}

// Assign routes rows and adds the deliveries of a fan-out in one
// statement, and returns the ids it routed (see queuebox.OutboxStore).
// It is idempotent, so it is safe to repeat after a broken connection.
func (o *Outbox) Assign(ctx context.Context, assignments []queuebox.Assignment) (map[string]bool, error) {
	if !o.lanes {
		return nil, fmt.Errorf("route outbox rows: %w", queuebox.ErrNoLanes)
	}
	if len(assignments) == 0 {
		return map[string]bool{}, nil
	}
	c := rowcodec.SplitAssignments(assignments)
	return o.db.queryIDs(ctx, repeatable, "route outbox rows", o.assign,
		c.IDs, c.Destinations, c.Tokens, c.Origins, c.Copies, o.opts.Clock(), c.Reasons)
}

// pauseData is the template data of destination_pause_record.
type pauseData struct{ Pauses string }

// PauseRecord implements queuebox.PauseRecorder in one statement.
func (o *Outbox) PauseRecord(ctx context.Context, p queuebox.PauseParams) error {
	var detail any
	if p.Detail != "" {
		detail = p.Detail
	}
	_, err := o.db.execCount(ctx, repeatable, "record destination pause", o.pauseRecord,
		p.Destination, p.Replica, p.Reason, detail, p.For.Milliseconds(), o.opts.Clock())
	return err
}

// arrayLiterals returns args with each []string and []int64 turned into
// its array literal; other arguments are kept.
func arrayLiterals(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case []string:
			out[i] = rowcodec.ArrayLiteral(v)
		case []int64:
			out[i] = rowcodec.IntArrayLiteral(v)
		default:
			out[i] = a
		}
	}
	return out
}
