package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/doctor"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

const doctorAbout = `queuebox doctor checks, in one run, what the runbook checks by hand:
the database answers; the migrations are applied and the V12 relay claim
indexes exist; with logical capture, wal_level and the replication slot
and its lag; the oldest pending row per destination and per source; the
dead rows per topic and per source; the dead row versions and the last
autovacuum of the outbox and inbox tables; the oldest open transaction,
which holds back their cleanup; and database.poolSize × --replicas
against the server's max_connections. It reads the same configuration as
the roles, talks to the database only, and changes nothing.

Each check prints ok, warn, fail or skip (does not apply here), with the
fix in one line. Exit status: 0 when every check is ok or skipped, 1 when
one warns, 2 when one fails (a database that does not answer, a bad
configuration or a bad flag included).`

// doctorCmd runs the checks, prints them and returns the exit code.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	b, flags, opts, out, wait := doctorFlags(stderr)
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", b.Name, flags.Arg(0))
		return 2
	}
	if opts.Replicas < 1 {
		fmt.Fprintf(stderr, "%s: --replicas %d: give the number of QueueBox processes, 1 or more\n", b.Name, opts.Replicas)
		return 2
	}
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 2
	}
	if err := fromConfig(cfg, opts); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	checks := diagnose(ctx, cfg, *opts, *wait, stderr)
	printChecks(stdout, *out, checks, opts.Replicas)
	return doctor.Code(checks)
}

// doctorFlags declares the flags of doctor over the options they set.
func doctorFlags(stderr io.Writer) (run.Binary, *flag.FlagSet, *doctor.Options, *output, *time.Duration) {
	b := run.Binary{Name: name + " doctor", About: doctorAbout}
	flags := run.NewFlagSet(b.Name, stderr)
	opts := &doctor.Options{}
	out := output("table")
	flags.Var(&out, "output", "table or json")
	flags.IntVar(&opts.Replicas, "replicas", 1, "how many QueueBox processes share the database, each with a pool of database.poolSize")
	flags.DurationVar(&opts.PendingAge, "pending-age", doctor.DefaultPendingAge, "warn when the oldest pending row of a destination or source is older")
	flags.DurationVar(&opts.TransactionAge, "transaction-age", doctor.DefaultTransactionAge, "warn when a transaction has been open longer")
	flags.Int64Var(&opts.DeadTuples, "dead-tuples", doctor.DefaultDeadTuples, "warn when a table holds more dead row versions")
	flags.Int64Var(&opts.SlotLag, "slot-lag", doctor.DefaultSlotLag, "warn when the replication slot holds back more write-ahead log, in bytes")
	wait := flags.Duration("wait", 5*time.Second, "how long to wait for the database to answer")
	return b, flags, opts, &out, wait
}

// fromConfig fills the options that come from the configuration.
func fromConfig(cfg *config.Config, opts *doctor.Options) error {
	router, err := deliver.NewRouter(wiring.RouteSpecs(cfg))
	if err != nil {
		return err
	}
	opts.DestinationOf = router.DestinationOf
	opts.Migrate = cfg.Database.Migrate
	opts.PoolSize = cfg.Database.PoolSize
	opts.Capture = cfg.Outbox.Capture.Mode == config.CapturePostgresLogical
	opts.Slot = cfg.Outbox.Capture.Slot
	opts.RetentionAge = wiring.RetentionAges(cfg)
	return nil
}

// diagnose opens the database and runs the checks; a database that does
// not answer is the one failed check.
func diagnose(ctx context.Context, cfg *config.Config, opts doctor.Options, wait time.Duration, stderr io.Writer) []doctor.Check {
	d, err := openDiagnostics(ctx, cfg.Database, wait, stderr)
	if err != nil {
		return []doctor.Check{{Name: "database", Status: doctor.Fail, Detail: config.FormatError(err),
			Fix: "check database.url (QUEUEBOX_DATABASE_URL), the credentials and that the server runs"}}
	}
	defer d.Close()
	return doctor.Run(ctx, d, opts)
}

// printChecks writes the checks as a table with each fix on the line
// below its check, or as one JSON document.
func printChecks(w io.Writer, out output, checks []doctor.Check, replicas int) {
	code := doctor.Code(checks)
	if out == "json" {
		writeJSON(w, map[string]any{"status": doctor.Worst(checks), "exitCode": code, "replicas": replicas, "checks": checks})
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tCHECK\tDETAIL")
	counts := map[doctor.Status]int{}
	for _, c := range checks {
		counts[c.Status]++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", c.Fix)
		}
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n%d ok, %d warn, %d fail, %d skipped; exit %d. The connection check assumes %s (--replicas).\n",
		counts[doctor.OK], counts[doctor.Warn], counts[doctor.Fail], counts[doctor.Skip], code, counted(int64(replicas), "replica", "replicas"))
}
