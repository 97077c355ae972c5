package cli

import (
	"bytes"
	"io"
	"strings"
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
	runCLICases(t, []cliCase{
		{"version of every role", []string{"--version"}, 0, "queuebox " + buildinfo.Version + "\nroles: ingest,relay,deliver,capture\n", ""},
		{"version of a subset", []string{"run", "--roles", "deliver,relay", "--version"}, 0,
			"queuebox " + buildinfo.Version + "\nroles: relay,deliver\n", ""},
		{"help lists the commands and roles", []string{"--help"}, 0, "queuebox health [--url URL]", ""},
		{"help as a command", []string{"help"}, 0, "queuebox health [--url URL]", ""},
		{"help of a command", []string{"help", "doctor"}, 0, "Exit status: 0 when every check is ok", ""},
		{"help of a subcommand", []string{"help", "dead", "show"}, 0, "one whole row", ""},
		{"help of an unknown command", []string{"help", "serve"}, 2, "", `unknown command "serve"`},
		{"a bad flag names its command", []string{"doctor", "--bogus"}, 2, "", "queuebox doctor: flag provided but not defined: -bogus; run queuebox doctor --help"},
		{"a bad flag of dead list names it", []string{"dead", "list", "--bogus"}, 2, "", "queuebox dead list: flag provided but not defined: -bogus"},
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
		{"a topic glob with a control character", []string{"dead", "list", "--topic", "order.\ncreated"}, 2, "", "holds a control character, which no topic can have"},
		{"a topic glob with ***", []string{"replay", "--topic", "order.***"}, 2, "", "which is not a valid glob"},
		{"a topic glob longer than a topic", []string{"replay", "--topic", strings.Repeat("a", 256)}, 2, "", "256 characters, longer than any topic (255)"},
		{"help says what a topic glob is", []string{"replay", "--help"}, 0, "every other character, [ ? and { too, matches itself", ""},
		{"unknown role", []string{"run", "--roles", "ingest,router"}, 2, "", "ingest, relay, deliver, capture"},
		{"stray argument", []string{"run", "extra"}, 2, "", `unexpected argument "extra"`},
		{"bad flag", []string{"run", "--rolls", "ingest"}, 2, "", "--help"},
		{"help of config check", []string{"config", "check", "--help"}, 0, "starts nothing", ""},
		{"config without check", []string{"config"}, 2, "", "the one command is check"},
		{"config check without a file", []string{"config", "check"}, 2, "", "name one configuration file"},
		{"config check with two files", []string{"config", "check", "a", "b"}, 2, "", "name one configuration file"},
		{"config check of a missing file", []string{"config", "check", "/nonexistent/queuebox.yml"}, 1, "", "no such file"},
	})
}

// cliCase is one command line and what it must print: with code 0, stdout
// contains stdout and stderr is empty; otherwise stdout is empty and
// stderr contains stderr.
type cliCase struct {
	name   string
	args   []string
	code   int
	stdout string
	stderr string
}

// runCLICases runs each case as a parallel subtest.
func runCLICases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, tc := range cases {
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
// variable after the command's name (migrate in its last log line), and
// exits 2, as for a bad flag.
func TestBadDatabaseURLExitsTwoEverywhere(t *testing.T) {
	t.Setenv("QUEUEBOX_CONFIG_FILE", "/nonexistent/queuebox.yml")
	t.Setenv("QUEUEBOX_DATABASE_URL", "jdbc:postgresql://127.0.0.1:port/queuebox")
	t.Setenv("QUEUEBOX_DATABASE_USERNAME", "postgres")
	t.Setenv("QUEUEBOX_DATABASE_PASSWORD", "")
	const id = "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"
	const problem = "database.url (QUEUEBOX_DATABASE_URL)"
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"queuebox: " + problem, []string{"run"}},
		{`"msg":"migrate failed","service":"queuebox migrate","err":"` + problem, []string{"migrate"}},
		{"queuebox migrate status: " + problem, []string{"migrate", "status"}},
		{"queuebox doctor: " + problem, []string{"doctor"}},
		{"queuebox dead list: " + problem, []string{"dead", "list"}},
		{"queuebox dead show: " + problem, []string{"dead", "show", id}},
		{"queuebox dead resend: " + problem, []string{"dead", "resend", id}},
		{"queuebox dead discard: " + problem, []string{"dead", "discard", id}},
		{"queuebox replay: " + problem, []string{"replay", "--topic", "order.*"}},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, runCLI(tc.args, &stdout, &stderr), "%v: %s", tc.args, stderr.String())
		require.Contains(t, stderr.String(), tc.want, "%v", tc.args)
	}
}

// TestMigrateLogsInOneFormatOnOneStream: whatever happens, migrate
// writes log lines only, on stderr, in the format QUEUEBOX_LOG_FORMAT
// names; nothing in another format, nothing on stdout.
func TestMigrateLogsInOneFormatOnOneStream(t *testing.T) {
	t.Setenv("QUEUEBOX_CONFIG_FILE", "/nonexistent/queuebox.yml")
	t.Setenv("QUEUEBOX_DATABASE_URL", "jdbc:postgresql://127.0.0.1:port/queuebox")
	t.Setenv("QUEUEBOX_DATABASE_USERNAME", "postgres")
	for format, line := range map[string]string{"": `^\{"time":.*"level":"ERROR","msg":"migrate failed"`, "text": `^time=\S+ level=ERROR msg="migrate failed"`} {
		t.Setenv("QUEUEBOX_LOG_FORMAT", format)
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, runCLI([]string{"migrate"}, &stdout, &stderr))
		require.Empty(t, stdout.String())
		for l := range strings.Lines(stderr.String()) {
			require.Regexp(t, line, l, "format %q", format)
		}
	}
}

// TestHelpOmitsAnEmptyFlagList: a command without flags prints no
// "Flags of" header with nothing under it; one with flags lists them.
func TestHelpOmitsAnEmptyFlagList(t *testing.T) {
	t.Parallel()
	for args, flags := range map[string]bool{"migrate": false, "config check": false, "migrate status": true, "doctor": true} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, runCLI(append(strings.Fields(args), "--help"), &stdout, &stderr), stderr.String())
		require.Equal(t, flags, strings.Contains(stdout.String(), "Flags of queuebox "+args+":"), "%s: %s", args, stdout.String())
	}
}

// TestCountedAgreesWithItsNumber: the CLI's counts read "1 outbox row
// matches" and "3 outbox rows match", never "1 outbox rows" or
// "replica(s)".
func TestCountedAgreesWithItsNumber(t *testing.T) {
	t.Parallel()
	require.Equal(t, "1 outbox row matches", counted(1, "outbox row matches", "outbox rows match"))
	require.Equal(t, "0 outbox rows match", counted(0, "outbox row matches", "outbox rows match"))
	require.Equal(t, "3 replicas", counted(3, "replica", "replicas"))

	var out bytes.Buffer
	printChecks(&out, "table", nil, 1)
	require.Contains(t, out.String(), "The connection check assumes 1 replica (--replicas).")
	out.Reset()
	printChecks(&out, "table", nil, 4)
	require.Contains(t, out.String(), "The connection check assumes 4 replicas (--replicas).")
}
