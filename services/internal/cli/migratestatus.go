package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
)

const migrateStatusAbout = `queuebox migrate status compares the migration history of the configured
database with the migrations bundled in this binary and prints one line
per version: applied, pending, mismatch (applied, but the bundled file's
checksum differs), failed (marked failed in the history) or unknown
(applied by a newer QueueBox). It changes nothing.

Exit status: 0 when every bundled version is applied with its checksum,
1 when one is pending, mismatched or failed, or the database cannot be
read, 2 on a bad flag or a configuration that does not load.`

// migrateStatusCmd prints the migration status and returns the exit code.
func migrateStatusCmd(args []string, stdout, stderr io.Writer) int {
	b := run.Binary{Name: name + " migrate status", About: migrateStatusAbout}
	flags := run.NewFlagSet(b.Name, stderr)
	out := output("table")
	flags.Var(&out, "output", "table or json")
	wait := flags.Duration("wait", 5*time.Second, "how long to wait for the database to answer")
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", b.Name, flags.Arg(0))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	status, err := readMigrations(ctx, *wait, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", b.Name, config.FormatError(err))
		return exitCode(err)
	}
	if out == "json" {
		writeJSON(stdout, map[string]any{"migrations": migrationRows(status)})
	} else {
		printMigrations(stdout, status)
	}
	for _, s := range status {
		if s.State != queuebox.MigrationApplied && s.State != queuebox.MigrationUnknown {
			return 1
		}
	}
	return 0
}

func readMigrations(ctx context.Context, wait time.Duration, stderr io.Writer) ([]queuebox.MigrationStatus, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	d, err := openDiagnostics(ctx, cfg.Database, wait, stderr)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Migrations(ctx)
}

// migrationRow is one version in the JSON output.
type migrationRow struct {
	Version         int    `json:"version"`
	Script          string `json:"script"`
	State           string `json:"state"`
	FileChecksum    *int32 `json:"fileChecksum"`
	AppliedChecksum *int32 `json:"appliedChecksum"`
}

func migrationRows(status []queuebox.MigrationStatus) []migrationRow {
	rows := make([]migrationRow, len(status))
	for i, s := range status {
		rows[i] = migrationRow{Version: s.Version, Script: s.Script, State: string(s.State),
			FileChecksum: s.FileChecksum, AppliedChecksum: s.AppliedChecksum}
	}
	return rows
}

func printMigrations(w io.Writer, status []queuebox.MigrationStatus) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tSCRIPT\tCHECKSUM (FILE / APPLIED)")
	for _, s := range status {
		fmt.Fprintf(tw, "V%d\t%s\t%s\t%s / %s\n", s.Version, s.State, s.Script, checksum(s.FileChecksum), checksum(s.AppliedChecksum))
	}
	_ = tw.Flush()
}

func checksum(c *int32) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprint(*c)
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
