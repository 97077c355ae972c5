package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store"
	"github.com/alternayte/queuebox/pkg/transform"
)

// The operator commands (migrate status, doctor) read the configuration
// the roles read and reach the database through the store seam, never
// through a running QueueBox.

// loadConfig loads the configuration from QUEUEBOX_CONFIG_FILE and the
// QUEUEBOX_ variables, as every role does, but resolves no destination
// host: an operator command sends nothing to a destination. Its error is
// a *configError, one problem per "; ".
func loadConfig() (*config.Config, error) {
	cfg, err := config.Load(config.Options{
		CompileExpression: transform.Check,
		LookupHost: func(context.Context, string) ([]net.IP, error) {
			return nil, errNoLookup
		},
	})
	if err != nil {
		return nil, &configError{text: config.FormatError(err)}
	}
	return cfg, nil
}

// configError is a configuration that does not load (a bad database.url
// among them): the command tried nothing, and exits 2 as for a bad flag,
// as queuebox run does.
type configError struct{ text string }

func (e *configError) Error() string { return e.text }

// exitCode is the exit status of a command that failed with err: 2 for a
// configuration that does not load, 1 for anything else.
func exitCode(err error) int {
	if errors.As(err, new(*configError)) {
		return 2
	}
	return 1
}

// openDiagnostics opens the read-only diagnostic seam of the configured
// database, waiting at most wait for it to answer (not
// database.startupTimeoutMs: an operator wants the answer now). A server
// that refuses the login or the database ends the wait at once, its
// reason first. Only errors reach stderr, so the command's own output
// stays clean.
func openDiagnostics(ctx context.Context, db config.Database, wait time.Duration, stderr io.Writer) (queuebox.Diagnostics, error) {
	db.StartupTimeoutMs = int(wait.Milliseconds())
	return store.OpenDiagnostics(ctx, db, storeOptions(stderr))
}

// storeOptions are the store options of an operator command: its own
// pool name and registry, only errors logged, and --wait named when the
// database does not answer in time.
func storeOptions(stderr io.Writer) store.Options {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	return store.Options{PoolName: name + "-cli", Registerer: prometheus.NewRegistry(), Logger: log, StartupSetting: "--wait"}
}

// output is the --output flag: table (for people) or json (for scripts).
type output string

func (o *output) String() string { return string(*o) }

func (o *output) Set(v string) error {
	switch v {
	case "table", "json":
		*o = output(v)
		return nil
	}
	return fmt.Errorf("%q is not an output; use table or json", v)
}

// counted is n with the words for one (one) or for any other count
// (many): "1 outbox row matches", "3 outbox rows match".
func counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
