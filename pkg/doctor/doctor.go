// Package doctor judges what the runbook checks by hand: it reads a
// database through queuebox.Diagnostics and turns each reading into a
// check that is ok, warn, fail or skip, with the fix in one line. It
// knows no dialect and prints nothing; `queuebox doctor` prints the
// checks and exits with Code.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Status is the verdict of one check.
type Status string

// Verdicts, in rising order of weight. Skip is a check that does not
// apply (capture is off) or that the database cannot answer (SQL Server
// has no autovacuum); it counts as ok for the exit code.
const (
	OK   Status = "ok"
	Skip Status = "skip"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Check is one verdict: what was checked, what was found and, unless it
// is ok, how to fix it.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Options are what the checks need besides the database: the settings
// the readings are judged against and the thresholds.
type Options struct {
	// Migrate is database.migrate: with it, a pending migration is one
	// that the next start applies (warn); without it, the start refuses
	// the schema (fail).
	Migrate bool
	// Capture is true when outbox.capture.mode is postgres-logical; Slot
	// is outbox.capture.slot.
	Capture bool
	Slot    string
	// PoolSize is database.poolSize and Replicas the number of processes
	// that open such a pool.
	PoolSize, Replicas int
	// DestinationOf resolves a topic to the destination the routes send
	// it to ("" when no route matches), as the poller does.
	DestinationOf func(topic string) string
	// RetentionAge is, per table, retention's max age when retention is
	// on with policy AGE: a past partition that ended longer ago and
	// still holds pending or processing rows is named, as retention keeps
	// it whole.
	RetentionAge map[queuebox.Table]time.Duration
	// PendingAge is the age of the oldest pending row above which a
	// destination or source warns; zero means DefaultPendingAge.
	PendingAge time.Duration
	// TransactionAge is the age above which an open transaction warns;
	// zero means DefaultTransactionAge.
	TransactionAge time.Duration
	// DeadTuples is the count of dead row versions above which a table
	// warns; zero means DefaultDeadTuples.
	DeadTuples int64
	// SlotLag is the write-ahead log in bytes that the slot may hold back
	// before it warns; zero means DefaultSlotLag.
	SlotLag int64
}

// The default thresholds. The pending age is the alert of the monitoring
// guide; a transaction open for five minutes already keeps every outbox
// row version that died in that time.
const (
	DefaultPendingAge     = 5 * time.Minute
	DefaultTransactionAge = 5 * time.Minute
	DefaultDeadTuples     = 100_000
	DefaultSlotLag        = 1 << 30
)

func (o *Options) defaults() {
	if o.PendingAge <= 0 {
		o.PendingAge = DefaultPendingAge
	}
	if o.TransactionAge <= 0 {
		o.TransactionAge = DefaultTransactionAge
	}
	if o.DeadTuples <= 0 {
		o.DeadTuples = DefaultDeadTuples
	}
	if o.SlotLag <= 0 {
		o.SlotLag = DefaultSlotLag
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.DestinationOf == nil {
		o.DestinationOf = func(string) string { return "" }
	}
}

// Run reads the database and returns every check in a fixed order. When
// the database does not answer, that is the only check. A reading that
// fails is a failed check naming the error; one that the dialect cannot
// make is skipped. A cancelled ctx fails the readings still to come.
func Run(ctx context.Context, d queuebox.Diagnostics, opts Options) []Check {
	opts.defaults()
	if err := d.Ping(ctx); err != nil {
		return []Check{{Name: "database", Status: Fail, Detail: err.Error(),
			Fix: "check database.url (QUEUEBOX_DATABASE_URL), the credentials and that the server runs"}}
	}
	checks := []Check{{Name: "database", Status: OK, Detail: d.Dialect() + " answers"}}
	checks = append(checks, migrationChecks(ctx, d, opts)...)
	checks = append(checks, indexChecks(ctx, d)...)
	checks = append(checks, captureChecks(ctx, d, opts)...)
	checks = append(checks, backlogChecks(ctx, d, opts)...)
	checks = append(checks, tableChecks(ctx, d, opts)...)
	checks = append(checks, partitionChecks(ctx, d, opts)...)
	checks = append(checks, transactionCheck(ctx, d, opts))
	checks = append(checks, connectionCheck(ctx, d, opts))
	return checks
}

// Code is the exit status of the checks: 2 when one failed, 1 when one
// warns, 0 otherwise.
func Code(checks []Check) int {
	code := 0
	for _, c := range checks {
		switch c.Status {
		case Fail:
			return 2
		case Warn:
			code = 1
		}
	}
	return code
}

// Worst is the heaviest verdict of the checks.
func Worst(checks []Check) Status {
	switch Code(checks) {
	case 2:
		return Fail
	case 1:
		return Warn
	}
	return OK
}

// unread is the check of a reading that failed: skipped when the dialect
// has no equivalent, failed otherwise.
func unread(name string, err error) Check {
	if errors.Is(err, queuebox.ErrNotSupported) {
		return Check{Name: name, Status: Skip, Detail: err.Error()}
	}
	return Check{Name: name, Status: Fail, Detail: err.Error(),
		Fix: "a missing table or column means the schema is behind (queuebox migrate status); otherwise grant the account read access"}
}

// age formats a duration to the second.
func age(d time.Duration) string { return d.Round(time.Second).String() }

// plural returns "1 row" or "n rows".
func plural(n int64, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
