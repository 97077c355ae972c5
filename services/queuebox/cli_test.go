package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/buildinfo"
)

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
		{"unknown role", []string{"run", "--roles", "ingest,router"}, 2, "", "ingest, relay, deliver, capture"},
		{"stray argument", []string{"run", "extra"}, 2, "", `unexpected argument "extra"`},
		{"bad flag", []string{"run", "--rolls", "ingest"}, 2, "", "--help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			require.Equal(t, tc.code, cli(tc.args, &stdout, &stderr), stderr.String())
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
