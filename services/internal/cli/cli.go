package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// name is the executable's name in logs, --version and --help.
const name = "queuebox"

const about = `queuebox runs QueueBox in one process.

Usage:
  queuebox [run] [--roles ingest,relay,deliver,capture]
  queuebox migrate [status]
  queuebox doctor [--replicas N] [--output table|json]
  queuebox dead list|show|resend|discard ...
  queuebox replay [filters] [--dry-run]
  queuebox health [--url URL]
  queuebox dev [--data DIR] [--config FILE]
  queuebox config check FILE
  queuebox help [COMMAND]

Commands:
  run     serve the roles (the default): every role, or those that --roles
          or QUEUEBOX_ROLES names, on one database pool and one data port
  migrate apply the migrations to the configured database and exit 0, or
          name the problem and exit 1
  migrate status
          list the applied and pending migrations and checksum mismatches
  doctor  check the database as the runbook does; exit 0 ok, 1 warn, 2 fail
  dead    list, show, resend or discard rows (dead ones by default)
  replay  move the sent and dead rows a filter selects back to pending
  health  probe the health route once; exit 0 on a 2xx answer, 1 otherwise
  dev     a private PostgreSQL, every role and a demo receiver on 127.0.0.1,
          for a first try without Docker; Ctrl-C removes everything
  config check
          load FILE with the environment; print every problem (key and
          variable) and exit 1, or the effective configuration with every
          secret masked and exit 0
  help    this text, or with a command the same as COMMAND --help`

// Main runs the command that args name (run when they name none) and
// returns the process's exit status: 0 done, 1 failed, 2 bad usage: a
// bad flag or argument, or a configuration that does not load, in every
// command but config check, whose answer that is (the doctor also 1 for
// a warning and 2 for a failure). roles are every role
// the binary can run, in the order they are wired; run serves them or the
// subset --roles names, and dev serves all of them. Main writes only to
// stdout and stderr; run and dev block until SIGINT or SIGTERM.
func Main(roles []wiring.Role, args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "help":
		// help COMMAND is COMMAND --help; help alone is --help.
		return Main(roles, append(slices.Clone(args), "--help"), stdout, stderr)
	case "run":
		return runCmd(roles, args, stdout, stderr)
	case "health":
		return healthCmd(args, stdout, stderr)
	case "dev":
		return devCmd(roles, args, stdout, stderr)
	case "migrate":
		return migrateCmd(args, stdout, stderr)
	case "doctor":
		return doctorCmd(args, stdout, stderr)
	case "dead":
		return deadCmd(args, stdout, stderr)
	case "replay":
		return replayCmd(args, stdout, stderr)
	case "config":
		return configCmd(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "%s: unknown command %q; the commands are run, migrate, doctor, dead, replay, health, dev, config and help (see %s help)\n", name, cmd, name)
	return 2
}

// runCmd serves the selected roles until SIGTERM or SIGINT.
func runCmd(roles []wiring.Role, args []string, stdout, stderr io.Writer) int {
	help := wiring.Binary(name, about, roles...)
	flags := run.NewFlagSet(name+" run", stderr)
	list := flags.String("roles", wiring.RolesFromEnv(), "comma-separated roles to run (default: every role; env "+wiring.RolesVar+")")
	showVersion := flags.Bool("version", false, "print the version and the roles, then exit")
	if code, stop := run.Parse(flags, help, args, stdout); stop {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; the configuration comes from QUEUEBOX_ variables and QUEUEBOX_CONFIG_FILE\n", name, flags.Arg(0))
		return 2
	}
	selected, err := wiring.Select(roles, *list)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --roles or %s: %v\n", name, wiring.RolesVar, err)
		return 2
	}
	b := wiring.Binary(name, about, selected...)
	if *showVersion {
		run.PrintVersion(stdout, b)
		return 0
	}
	return run.Start(b, stderr)
}
