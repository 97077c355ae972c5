package cli

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/buildinfo"
	"github.com/alternayte/queuebox/services/internal/capturerole"
	"github.com/alternayte/queuebox/services/internal/deliverrole"
	"github.com/alternayte/queuebox/services/internal/ingestrole"
	"github.com/alternayte/queuebox/services/internal/relayrole"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// roles are the roles of the queuebox binary, in its order of wiring.
var roles = []wiring.Role{ingestrole.Role, relayrole.Role, deliverrole.Role, capturerole.Role}

// runCLI runs the command line as the queuebox binary does.
func runCLI(args []string, stdout, stderr io.Writer) int { return Main(roles, args, stdout, stderr) }

func TestCLI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"version of every role", []string{"--version"}, 0, "queuebox " + buildinfo.Version + "\nroles: ingest,relay,deliver,capture\n", ""},
		{"version of a subset", []string{"run", "--roles", "deliver,relay", "--version"}, 0,
			"queuebox " + buildinfo.Version + "\nroles: relay,deliver\n", ""},
		{"help lists the commands and roles", []string{"--help"}, 0, "queuebox health [--url URL]", ""},
		{"help of health", []string{"health", "--help"}, 0, "exits 0 when the route answers 2xx", ""},
		{"help of migrate", []string{"migrate", "--help"}, 0, "applies the migrations", ""},
		{"stray argument to migrate", []string{"migrate", "now"}, 2, "", `unexpected argument "now"`},
		{"unknown command", []string{"serve"}, 2, "", `unknown command "serve"`},
		{"help of migrate status", []string{"migrate", "status", "--help"}, 0, "checksum differs", ""},
		{"help of doctor", []string{"doctor", "--help"}, 0, "Exit status: 0 when every check is ok", ""},
		{"help of dead", []string{"dead", "--help"}, 0, "queuebox dead resend  ID", ""},
		{"help of dead list", []string{"dead", "list", "--help"}, 0, "-cursor", ""},
		{"help of dead show", []string{"dead", "show", "--help"}, 0, "one whole row", ""},
		{"help of dead resend", []string{"dead", "resend", "--help"}, 0, "-payload", ""},
		{"dead resend to a destination", []string{"dead", "resend", "--help"}, 0, "-destination", ""},
		{"dead discard to a destination", []string{"dead", "discard", "--help"}, 0, "-destination", ""},
		{"destination of an inbox row", []string{"dead", "discard", "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10", "--table", "inbox", "--destination", "billing"},
			2, "", "--destination selects a delivery of an outbox row"},
		{"help of dead discard", []string{"dead", "discard", "--help"}, 0, "marks one dead row discarded", ""},
		{"help of replay", []string{"replay", "--help"}, 0, "-dry-run", ""},
		{"bad output of doctor", []string{"doctor", "--output", "yaml"}, 2, "", `"yaml" is not an output; use table or json`},
		{"bad replicas", []string{"doctor", "--replicas", "0"}, 2, "", "--replicas 0"},
		{"stray argument to doctor", []string{"doctor", "now"}, 2, "", `unexpected argument "now"`},
		{"stray argument to migrate status", []string{"migrate", "status", "all"}, 2, "", `unexpected argument "all"`},
		{"unknown dead command", []string{"dead", "purge"}, 2, "", `unknown command "purge"`},
		{"unknown filter", []string{"dead", "list", "--colour", "red"}, 2, "", "flag provided but not defined: -colour"},
		{"bad filter value", []string{"dead", "list", "--state", "lost"}, 2, "", `--state "lost" is not a state of the outbox table`},
		{"bad limit", []string{"dead", "list", "--limit", "501"}, 2, "", "--limit 501: give 1 to 500"},
		{"bad id", []string{"dead", "show", "42"}, 2, "", `bad id "42"`},
		{"no id", []string{"dead", "discard"}, 2, "", "give exactly one row id"},
		{"two ids", []string{"dead", "resend", "a", "b"}, 2, "", "give exactly one row id"},
		{"inbox payload edit", []string{"dead", "resend", "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10", "--table", "inbox", "--payload", "{}"}, 2, "", "outbox rows only"},
		{"replay without a filter", []string{"replay", "--dry-run"}, 2, "", "a replay needs at least one filter"},
		{"bad batch", []string{"replay", "--topic", "a", "--batch", "0"}, 2, "", "--batch 0"},
		{"unknown role", []string{"run", "--roles", "ingest,router"}, 2, "", "ingest, relay, deliver, capture"},
		{"stray argument", []string{"run", "extra"}, 2, "", `unexpected argument "extra"`},
		{"bad flag", []string{"run", "--rolls", "ingest"}, 2, "", "--help"},
		{"help of config check", []string{"config", "check", "--help"}, 0, "starts nothing", ""},
		{"config without check", []string{"config"}, 2, "", "the one command is check"},
		{"config check without a file", []string{"config", "check"}, 2, "", "name one configuration file"},
		{"config check with two files", []string{"config", "check", "a", "b"}, 2, "", "name one configuration file"},
		{"config check of a missing file", []string{"config", "check", "/nonexistent/queuebox.yml"}, 1, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			require.Equal(t, tc.code, runCLI(tc.args, &stdout, &stderr), stderr.String())
			if tc.code == 0 {
				require.Contains(t, stdout.String(), tc.stdout)
				require.Empty(t, stderr.String())
			} else {
				require.Empty(t, stdout.String())
				require.Contains(t, stderr.String(), tc.stderr)
			}
		})
	}
}

// TestBadDatabaseURLExitsTwoEverywhere: a database.url that does not
// parse is a configuration that does not load. Every command that reads
// the configuration stops before it connects, names the key and its
// variable after the command's name, and exits 2, as for a bad flag.
func TestBadDatabaseURLExitsTwoEverywhere(t *testing.T) {
	t.Setenv("QUEUEBOX_CONFIG_FILE", "/nonexistent/queuebox.yml")
	t.Setenv("QUEUEBOX_DATABASE_URL", "jdbc:postgresql://127.0.0.1:port/queuebox")
	t.Setenv("QUEUEBOX_DATABASE_USERNAME", "postgres")
	t.Setenv("QUEUEBOX_DATABASE_PASSWORD", "")
	const id = "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"
	for _, tc := range []struct {
		prefix string
		args   []string
	}{
		{"queuebox", []string{"run"}},
		{"queuebox migrate", []string{"migrate"}},
		{"queuebox migrate status", []string{"migrate", "status"}},
		{"queuebox doctor", []string{"doctor"}},
		{"queuebox dead list", []string{"dead", "list"}},
		{"queuebox dead show", []string{"dead", "show", id}},
		{"queuebox dead resend", []string{"dead", "resend", id}},
		{"queuebox dead discard", []string{"dead", "discard", id}},
		{"queuebox replay", []string{"replay", "--topic", "order.*"}},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, runCLI(tc.args, &stdout, &stderr), "%v: %s", tc.args, stderr.String())
		require.Contains(t, stderr.String(), tc.prefix+": database.url (QUEUEBOX_DATABASE_URL)", "%v", tc.args)
	}
}
