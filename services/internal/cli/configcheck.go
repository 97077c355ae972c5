package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/transform"
)

const configCheckAbout = `queuebox config check FILE loads FILE as the server would, with the
QUEUEBOX_ variables of the environment over it (QUEUEBOX_CONFIG_FILE is
replaced by FILE), and starts nothing. On problems it prints each one on
its own line, naming the key and its variable, and exits 1. Otherwise it
prints the warnings to stderr and the effective configuration to stdout,
every secret and URL password masked, and exits 0. Transform expressions
are compiled; destination hosts are resolved when
http.blockPrivateAddresses is true.`

// configCmd runs `queuebox config check FILE`, the one config command.
func configCmd(args []string, stdout, stderr io.Writer) int {
	b := run.Binary{Name: name + " config check", About: configCheckAbout}
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			return configCheckCmd(args, b, stdout, stderr)
		}
		fmt.Fprintf(stderr, "%s config: the one command is check (queuebox config check FILE)\n", name)
		return 2
	}
	return configCheckCmd(args[1:], b, stdout, stderr)
}

func configCheckCmd(args []string, b run.Binary, stdout, stderr io.Writer) int {
	flags := run.NewFlagSet(b.Name, stderr)
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	if flags.NArg() != 1 {
		fmt.Fprintf(stderr, "%s: name one configuration file (queuebox config check FILE)\n", b.Name)
		return 2
	}
	// The loader falls back to the variables alone when the named file is
	// missing and some QUEUEBOX_ variable is set; a check of FILE must not.
	if _, err := os.Stat(flags.Arg(0)); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 1
	}
	cfg, err := config.Load(config.Options{Environ: withConfigFile(os.Environ(), flags.Arg(0)), CompileExpression: transform.Check})
	if err != nil {
		problems := config.Problems(err)
		fmt.Fprintf(stderr, "%s: %s: %s\n", b.Name, flags.Arg(0), counted(int64(len(problems)), "problem", "problems"))
		for _, p := range problems {
			fmt.Fprintf(stderr, "  %s\n", strings.ReplaceAll(p.Error(), "\n", "\n    "))
		}
		return 1
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintf(stderr, "%s: warning: %s\n", b.Name, w)
	}
	out, err := cfg.MaskedYAML()
	if err != nil {
		fmt.Fprintf(stderr, "%s: render the configuration: %v\n", b.Name, err)
		return 1
	}
	_, _ = stdout.Write(out)
	return 0
}

// withConfigFile returns environ with QUEUEBOX_CONFIG_FILE naming file.
func withConfigFile(environ []string, file string) []string {
	const key = config.EnvPrefix + "CONFIG_FILE="
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, key) {
			out = append(out, kv)
		}
	}
	return append(out, key+file)
}
