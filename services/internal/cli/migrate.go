package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/store"
	"github.com/alternayte/queuebox/pkg/transform"
)

const migrateAbout = `queuebox migrate applies the migrations to the configured database and
exits: 0 when the schema is up to date, 1 with the problem named otherwise
(2 when the configuration does not load).
It runs what every role runs at its start with database.migrate: true,
whatever database.migrate says, so a Job can migrate for replicas that run
with database.migrate: false. The configuration comes from the same
QUEUEBOX_ variables and QUEUEBOX_CONFIG_FILE as the server; point
QUEUEBOX_DATABASE_USERNAME and QUEUEBOX_DATABASE_PASSWORD at an account
with the right to change the schema.

It writes log lines only, on stderr, in the format of QUEUEBOX_LOG_FORMAT
(json, the default, or text) as the roles do: one per migration it
applies, then "schema up to date", or "migrate failed" with the reason.

queuebox migrate status lists the applied and pending versions instead
and changes nothing (see queuebox migrate status --help).

queuebox migrate partition converts a populated, unpartitioned outbox and
inbox into partitioned ones (see queuebox migrate partition --help).`

// migrateCmd migrates the configured database once and returns the exit
// code. Everything it says is a line of the process logger on stderr, in
// one format, so a Job's log reads like a role's; stdout stays empty.
func migrateCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "status" {
		return migrateStatusCmd(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "partition" {
		return migratePartitionCmd(args[1:], stdout, stderr)
	}
	b := run.Binary{Name: name + " migrate", About: migrateAbout}
	flags := run.NewFlagSet(b.Name, stderr)
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", b.Name, flags.Arg(0))
		return 2
	}
	boot, err := config.LoadBootstrap()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 2
	}
	log := run.NewLogger(stderr, boot.LogLevel, boot.LogFormat).With("service", b.Name)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cfg, err := config.Load(config.Options{CompileExpression: transform.Check})
	if err != nil {
		err = &configError{text: config.FormatError(err)}
	} else {
		err = migrate(ctx, cfg.Database, log)
	}
	if err != nil {
		log.Error("migrate failed", "err", config.FormatError(err))
		return exitCode(err)
	}
	return 0
}

// migrate connects to the database, applies the migrations that are
// missing and checks the schema, with the runner every role uses at its
// start; it closes what it opened.
func migrate(ctx context.Context, db config.Database, log *slog.Logger) error {
	db.Migrate = true
	stores, err := store.Open(ctx, db, store.Options{PoolName: "queuebox-migrate", Registerer: prometheus.NewRegistry(), Logger: log})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	stores.Close()
	return nil
}
