package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/store"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

const deadAbout = `queuebox dead lists, shows, resends and discards rows of the outbox or
the inbox, through the database the configuration names (no running
QueueBox is needed).

Usage:
  queuebox dead list    [filters] [--limit N] [--cursor C] [--output table|json]
  queuebox dead show    ID [--table outbox|inbox] [--output table|json]
  queuebox dead resend  ID [--table outbox|inbox] [--destination NAME] [--payload JSON|@FILE] [--headers JSON|@FILE] [--dry-run]
  queuebox dead discard ID [--table outbox|inbox] [--destination NAME] [--dry-run]

list shows dead rows unless --state says otherwise. resend moves one sent
or dead outbox row, or one dead inbox row, back to pending, as a replay
does; discard marks one dead row discarded, which hides it from lists and
from the doctor, and retention deletes it later like any dead row. With
--destination, resend and discard act on the delivery of the message to
that destination (of a route with several destinations), whichever row
of the message ID names.
Run queuebox dead <command> --help for the flags of each.

Exit status: 0 done, 1 the row is missing or in the wrong state or the
database failed, 2 bad usage.`

// deadCmd runs one dead subcommand.
func deadCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-help" || args[0] == "-h" {
		fmt.Fprintln(stdout, deadAbout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "list":
		return deadListCmd(args[1:], stdout, stderr)
	case "show":
		return deadShowCmd(args[1:], stdout, stderr)
	case "resend":
		return deadResendCmd(args[1:], stdout, stderr)
	case "discard":
		return deadDiscardCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "%s dead: unknown command %q; the commands are list, show, resend and discard\n", name, args[0])
	return 2
}

// workbench is an open store set and its workbench store; close closes
// the set.
type workbench struct {
	stores         queuebox.Stores
	wb             queuebox.WorkbenchStore
	destinationsOf admin.DestinationsOf
}

func (w *workbench) close() { w.stores.Close() }

// openWorkbench loads the configuration and opens the configured database
// through the store set, without migrating it (an operator command never
// changes the schema), waiting at most wait for it to answer.
func openWorkbench(ctx context.Context, wait time.Duration, stderr io.Writer) (*workbench, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	router, err := deliver.NewRouter(wiring.RouteSpecs(cfg))
	if err != nil {
		return nil, &configError{text: err.Error()}
	}
	db := cfg.Database
	db.Migrate = false
	db.StartupTimeoutMs = int(wait.Milliseconds())
	stores, err := store.Open(ctx, db, storeOptions(stderr))
	if err != nil {
		return nil, errors.New(config.FormatError(err))
	}
	wb, err := stores.Workbench()
	if err != nil {
		stores.Close()
		return nil, err
	}
	return &workbench{stores: stores, wb: wb, destinationsOf: router.DestinationsOf}, nil
}

// session parses flags, checks that exactly want positional arguments
// remain, and opens the workbench; code is non-zero when the caller
// must stop with it.
type session struct {
	b     run.Binary
	flags *flag.FlagSet
	out   output
	wait  *time.Duration
}

func newSession(sub, about string, stderr io.Writer) *session {
	s := &session{b: run.Binary{Name: name + " " + sub, About: about}, out: "table"}
	s.flags = run.NewFlagSet(s.b.Name, stderr)
	s.flags.Var(&s.out, "output", "table or json")
	s.wait = s.flags.Duration("wait", 5*time.Second, "how long to wait for the database to answer")
	return s
}

// parse parses args, allowing flags after the positional arguments (the
// row id comes first in the usage), and checks their count.
func (s *session) parse(args []string, want int, stdout, stderr io.Writer) ([]string, int, bool) {
	var positional []string
	for {
		if code, stop := run.Parse(s.flags, s.b, args, stdout); stop {
			return nil, code, true
		}
		if s.flags.NArg() == 0 {
			break
		}
		positional = append(positional, s.flags.Arg(0))
		args = s.flags.Args()[1:]
	}
	if len(positional) != want {
		if want == 0 {
			fmt.Fprintf(stderr, "%s: unexpected argument %q\n", s.b.Name, positional[0])
		} else {
			fmt.Fprintf(stderr, "%s: give exactly one row id (see %s --help)\n", s.b.Name, s.b.Name)
		}
		return nil, 2, true
	}
	return positional, 0, false
}

// context is the command's context: cancelled by SIGINT and SIGTERM.
func commandContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
}

// fail prints err for the command and returns its exit status: 2 for a
// configuration that does not load, 1 otherwise.
func (s *session) fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", s.b.Name, err)
	return exitCode(err)
}

// usage prints err for the command and returns exit status 2.
func (s *session) usage(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", s.b.Name, err)
	return 2
}

// isTerminal reports whether w is a terminal, for the progress bar.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// rowError words a store error about one row for the operator.
func rowError(table queuebox.Table, id string, err error) error {
	switch {
	case errors.Is(err, queuebox.ErrNotFound):
		return fmt.Errorf("no %s row has id %s", table, id)
	case errors.Is(err, queuebox.ErrWrongState):
		return fmt.Errorf("%s row %s: %w", table, id, err)
	case errors.Is(err, admin.ErrNoDelivery):
		return err
	}
	return err
}
