package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// The command line of queuebox migrate partition, short of a database:
// the conversion itself is tested in pkg/store/postgres and, through the
// binary, in integration/.
func TestMigratePartitionFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"migrate", "partition", "--help"}, 0, "<table>_legacy", ""},
		{"help names the flags", []string{"migrate", "partition", "--help"}, 0, "-lock-timeout", ""},
		{"stray argument", []string{"migrate", "partition", "now"}, 2, "", `unexpected argument "now"`},
		{"no margin", []string{"migrate", "partition", "--margin", "0s"}, 2, "", "--margin and --lock-timeout must be above zero"},
		{"bad flag", []string{"migrate", "partition", "--boundary", "1h"}, 2, "", "flag provided but not defined: -boundary"},
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
