package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/store"
)

const migratePartitionAbout = `queuebox migrate partition makes the existing outbox and inbox of the
configured PostgreSQL database partitioned by created_at, in place, rows
and all, while the applications write and QueueBox delivers. The old
table becomes the first partition (<table>_legacy) of every created_at
before a boundary, the first multiple of database.partitioning.interval
at least --margin ahead; new partitions follow it.

It needs database.partitioning.enabled: true (the setting the roles start
with afterwards) and a database with every migration applied. It builds
the indexes the partition needs CONCURRENTLY, validates a check on
created_at without stopping writes, then switches each table in one short
transaction that holds ACCESS EXCLUSIVE for milliseconds; each wait for
that lock lasts at most --lock-timeout and is tried again. Each step is
printed as it ends, with the lock it took and how long it waited for and
held it. Running it again finishes a conversion that stopped half way.

Stop the ingest role before (its inserts of the unpartitioned kind fail
on a partitioned inbox) and start every role with partitioning enabled
after; deliver and relay may run through it. docs/partitions.md has the
whole procedure.

Exit status: 0 when both tables are partitioned, 1 when the conversion
failed (the error says what is left), 2 on a bad flag or configuration.`

// migratePartitionCmd converts the configured database and returns the
// exit code.
func migratePartitionCmd(args []string, stdout, stderr io.Writer) int {
	b := run.Binary{Name: name + " migrate partition", About: migratePartitionAbout}
	flags := run.NewFlagSet(b.Name, stderr)
	margin := flags.Duration("margin", time.Hour, "the least time between the check on created_at and the boundary it names")
	lockTimeout := flags.Duration("lock-timeout", 2*time.Second, "the longest wait for a lock that stops the table's readers and writers, before it is asked again")
	wait := flags.Duration("wait", 5*time.Second, "how long to wait for the database to answer")
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", b.Name, flags.Arg(0))
		return 2
	}
	if *margin <= 0 || *lockTimeout <= 0 {
		fmt.Fprintf(stderr, "%s: --margin and --lock-timeout must be above zero\n", b.Name)
		return 2
	}
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", b.Name, config.FormatError(err))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	db := cfg.Database
	db.StartupTimeoutMs = int(wait.Milliseconds())
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	fmt.Fprintf(stdout, "%-7s %-68s %-26s %10s %10s %5s\n", "TABLE", "STEP", "LOCK", "WAITED", "HELD", "TRIES")
	err = store.ConvertPartitioned(ctx, db, store.Options{PoolName: name + "-cli", Registerer: prometheus.NewRegistry(), Logger: log},
		store.ConvertOptions{Margin: *margin, LockTimeout: *lockTimeout, Step: func(s queuebox.ConversionStep) { printStep(stdout, s) }})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 1
	}
	fmt.Fprintln(stdout, "the outbox and inbox are partitioned by created_at; start every role with database.partitioning.enabled: true")
	return 0
}

// printStep writes one step as a line of the table.
func printStep(w io.Writer, s queuebox.ConversionStep) {
	lock := s.Lock
	if lock == "" {
		lock = "-"
	} else if s.Blocking {
		lock += " (blocks)"
	}
	fmt.Fprintf(w, "%-7s %-68s %-26s %10s %10s %5d\n", s.Table, s.Step, lock, shortDuration(s.Waited), shortDuration(s.Held), s.Tries)
}

// shortDuration rounds to the millisecond, or to the microsecond below one.
func shortDuration(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}
