package cli

import "testing"

// The command line of queuebox migrate partition, short of a database:
// the conversion itself is tested in pkg/store/postgres and, through the
// binary, in integration/.
func TestMigratePartitionFlags(t *testing.T) {
	t.Parallel()
	runCLICases(t, []cliCase{
		{"help", []string{"migrate", "partition", "--help"}, 0, "<table>_legacy", ""},
		{"help names the flags", []string{"migrate", "partition", "--help"}, 0, "-lock-timeout", ""},
		{"stray argument", []string{"migrate", "partition", "now"}, 2, "", `unexpected argument "now"`},
		{"no margin", []string{"migrate", "partition", "--margin", "0s"}, 2, "", "--margin and --lock-timeout must be above zero"},
		{"bad flag", []string{"migrate", "partition", "--boundary", "1h"}, 2, "", "flag provided but not defined: -boundary"},
	})
}
