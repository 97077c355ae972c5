package sqlserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

// leaseRow is one element of the JSON array that the fenced statements
// read with OPENJSON: T-SQL has no array parameters. Fields a statement
// does not read stay out of the text.
type leaseRow struct {
	ID      string          `json:"id"`
	Token   string          `json:"token"`
	Outcome string          `json:"outcome,omitempty"`
	DelayMs int64           `json:"delay_ms,omitempty"`
	Error   *string         `json:"error,omitempty"`
	Topic   string          `json:"topic,omitempty"`
	Headers json.RawMessage `json:"headers,omitempty"`
	// Dest is the destination a row without a key went to (Finish).
	Dest string `json:"dest,omitempty"`
	// The attempt's facts for the delivery ledger (Finish with the
	// ledger written): StartedAt is UTC with seven decimals, the text
	// that OPENJSON reads as a DATETIME2.
	Attempt    int    `json:"attempt,omitempty"`
	StartedAt  string `json:"started_at,omitempty"`
	DurationMs int64  `json:"duration_ms,omitempty"`
	Class      string `json:"class,omitempty"`
	Status     string `json:"status,omitempty"`
	Answer     string `json:"answer,omitempty"`
}

// datetime2 is the layout of a DATETIME2 in the JSON that OPENJSON reads:
// ISO 8601 without a zone (the column holds UTC) and with the type's
// seven decimals.
const datetime2 = "2006-01-02T15:04:05.0000000"

// jsonRows encodes rows as the one NVARCHAR(MAX) parameter of a fenced
// statement.
func jsonRows(rows []leaseRow) string {
	b, err := json.Marshal(rows)
	if err != nil {
		panic(err) // strings, numbers and JSON the caller built: cannot fail
	}
	return string(b)
}

func leaseRows(leases []queuebox.Lease) []leaseRow {
	ids, tokens := rowcodec.SplitLeases(leases)
	out := make([]leaseRow, len(ids))
	for i := range ids {
		out[i] = leaseRow{ID: ids[i], Token: tokens[i]}
	}
	return out
}

// outcomeRows encodes outcomes; the error of a sent row is not sent, so
// a confirming read compares NULL with NULL as the write stored it.
// ledger adds the attempt's facts for the delivery ledger.
func outcomeRows(outcomes []queuebox.Outcome, ledger bool) []leaseRow {
	out := make([]leaseRow, len(outcomes))
	for i, oc := range outcomes {
		reason := oc.Error
		out[i] = leaseRow{ID: oc.Lease.ID, Token: oc.Lease.Token, Outcome: string(oc.Kind),
			DelayMs: oc.Delay.Milliseconds(), Error: &reason, Dest: oc.Destination}
		if ledger {
			a := oc.Attempt
			out[i].Attempt, out[i].DurationMs = a.Number, rowcodec.DurationMs(a.Duration)
			out[i].Class, out[i].Status, out[i].Answer = string(a.Class), a.Status, a.Answer
			if !a.StartedAt.IsZero() {
				out[i].StartedAt = a.StartedAt.UTC().Format(datetime2)
			}
		}
	}
	return out
}

// Finish writes many outcomes in one fenced statement and returns the ids
// it changed. An id missing from the answer lost its claim. A deadlock
// victim is tried again (SQL Server rolled it back, so its fate is
// known); after any other error the fate is unknown, and the caller
// tries again with FinishAgain.
func (o *Outbox) Finish(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	return o.db.queryIDs(ctx, "finish outbox rows", o.finish, jsonRows(outcomeRows(outcomes, o.ledger)), o.opts.Clock())
}

// FinishAgain is Finish for a later try of the same outcomes, after a try
// that failed: a row whose fence fails now but that already shows its
// outcome under its claim token counts as written, not as a lost claim.
func (o *Outbox) FinishAgain(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	return rowcodec.FinishAgain(ctx, outcomes, o.Finish, o.confirm)
}

// confirm finds the outcomes that an earlier try wrote.
func (o *Outbox) confirm(ctx context.Context, outcomes []queuebox.Outcome) (map[string]bool, error) {
	return o.db.queryIDs(ctx, "confirm outbox outcomes", o.written, jsonRows(outcomeRows(outcomes, false)))
}

// Renew extends the leases still held by the store's lease and returns
// their ids; a missing id lost its claim. It is safe to repeat.
func (o *Outbox) Renew(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
	return o.db.queryIDs(ctx, "renew outbox leases", o.renew, jsonRows(leaseRows(leases)),
		o.lease.Milliseconds(), o.opts.Clock())
}

// Reclaim returns processing rows whose lease ended before now to
// pending and says how many; a row another statement holds is skipped.
func (o *Outbox) Reclaim(ctx context.Context) (int64, error) {
	return o.db.execCount(ctx, "reclaim expired outbox claims", o.reclaim, o.opts.Clock())
}

// NextDue implements queuebox.NextDuer by the clock the claims use (the
// database's, or the test clock of WithClock).
func (o *Outbox) NextDue(ctx context.Context, since time.Duration) (time.Duration, bool, error) {
	var ms sql.NullInt64
	err := o.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, o.nextDue, o.opts.Clock(), max(since, 0).Milliseconds()).Scan(&ms)
	})
	if err != nil {
		return 0, false, fmt.Errorf("read the next due outbox row: %w", err)
	}
	if !ms.Valid {
		return 0, false, nil
	}
	return time.Duration(ms.Int64) * time.Millisecond, true, nil
}

// Pending reads the pending rows per topic and the age of the oldest, by
// the database clock.
func (o *Outbox) Pending(ctx context.Context) (queuebox.PendingStats, error) {
	var st queuebox.PendingStats
	err := o.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		st = queuebox.PendingStats{ByTopic: map[string]int64{}, ByDestination: map[string]int64{}, Unrouted: map[string]int64{}}
		rows, err := conn.QueryContext(ctx, o.stats)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var topic, dest string
			var count int64
			var age float64
			if err := rows.Scan(&topic, &dest, &count, &age); err != nil {
				return err
			}
			st.Add(topic, dest, count)
			st.OldestAge = max(st.OldestAge, rowcodec.Seconds(age))
		}
		return rows.Err()
	})
	if err != nil {
		return queuebox.PendingStats{}, fmt.Errorf("read pending outbox rows: %w", err)
	}
	return st, nil
}

// Postpone implements queuebox.Postponer in one statement (both topic
// lists sent as JSON arrays); with no topic routed to the destination it
// moves nothing and runs nothing. It is safe to repeat.
func (o *Outbox) Postpone(ctx context.Context, p queuebox.PostponeParams) (int64, error) {
	if len(p.Topics) == 0 {
		return 0, nil
	}
	unrouted := p.UnroutedTopics
	if unrouted == nil {
		unrouted = []string{}
	}
	return o.db.execCount(ctx, "postpone outbox rows", o.postpone, jsonArg(p.Topics), p.Delay.Milliseconds(),
		o.opts.Clock(), p.Destination, jsonArg(unrouted))
}

// jsonArg encodes a list as one JSON array parameter for OPENJSON.
func jsonArg[T any](list []T) string {
	b, err := json.Marshal(list)
	if err != nil {
		panic(err) // strings and numbers: cannot fail
	}
	return string(b)
}

// Unrouted lists up to limit pending keyed rows without a destination,
// lowest sequence first. It holds no lock past the read and is safe to
// repeat.
func (o *Outbox) Unrouted(ctx context.Context, limit int) ([]queuebox.UnroutedRow, error) {
	if !o.lanes {
		return nil, nil
	}
	var out []queuebox.UnroutedRow
	err := o.db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, o.unrouted, limit)
		if err != nil {
			return err
		}
		out, err = collect(rows, func(rows *sql.Rows) (queuebox.UnroutedRow, error) {
			var r queuebox.UnroutedRow
			return r, rows.Scan(&r.ID, &r.Topic)
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read unrouted outbox rows: %w", err)
	}
	return out, nil
}

// assignRow is one routed row of outbox_assign.sql; an empty token or
// reason stays out of the text and reads as NULL.
type assignRow struct {
	ID     string `json:"id"`
	Dest   string `json:"dest"`
	Token  string `json:"token,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// copyRow is one added delivery of a fan-out in outbox_assign.sql.
type copyRow struct {
	Origin string `json:"origin"`
	Dest   string `json:"dest"`
}

// assignJSON encodes the columns of rowcodec.SplitAssignments as the two
// JSON array parameters of outbox_assign.sql.
func assignJSON(c rowcodec.Assignments) (routed, copies string) {
	rows := make([]assignRow, len(c.IDs))
	for i := range c.IDs {
		rows[i] = assignRow{ID: c.IDs[i], Dest: c.Destinations[i], Token: c.Tokens[i], Reason: c.Reasons[i]}
	}
	adds := make([]copyRow, len(c.Origins))
	for i := range c.Origins {
		adds[i] = copyRow{Origin: c.Origins[i], Dest: c.Copies[i]}
	}
	return jsonArg(rows), jsonArg(adds)
}

// Assign routes rows and adds the deliveries of a fan-out in one
// transaction, and returns the ids it routed (see queuebox.OutboxStore).
// It is idempotent, so a repeat after a lost deadlock is safe; after any
// other error the caller may simply call it again.
func (o *Outbox) Assign(ctx context.Context, assignments []queuebox.Assignment) (map[string]bool, error) {
	if !o.lanes {
		return nil, fmt.Errorf("route outbox rows: %w", queuebox.ErrNoLanes)
	}
	c := rowcodec.SplitAssignments(assignments)
	if len(c.IDs) == 0 {
		return map[string]bool{}, nil
	}
	routed, copies := assignJSON(c)
	return o.db.queryIDs(ctx, "route outbox rows", o.assign, routed, copies, o.opts.Clock())
}

// pauseData is the template data of destination_pause_record.
type pauseData struct{ Pauses string }

// PauseRecord implements queuebox.PauseRecorder in one batch.
func (o *Outbox) PauseRecord(ctx context.Context, p queuebox.PauseParams) error {
	var detail any
	if p.Detail != "" {
		detail = p.Detail
	}
	_, err := o.db.execCount(ctx, "record destination pause", o.pauseRecord,
		p.Destination, p.Replica, p.Reason, detail, p.For.Milliseconds(), o.opts.Clock())
	return err
}
