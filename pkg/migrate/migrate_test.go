package migrate_test

import (
	"hash/crc32"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/migrations"
	"github.com/alternayte/queuebox/pkg/migrate"
)

func files(names ...string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, n := range names {
		fsys["db/"+n] = &fstest.MapFile{Data: []byte("-- " + n + "\nSELECT 1;\n")}
	}
	return fsys
}

func TestLoadFSSortsVersionsNumerically(t *testing.T) {
	t.Parallel()
	// fs.ReadDir lists V10 and V11 before V2.
	got, err := migrate.LoadFS(files("V1__a.sql", "V10__j.sql", "V11__k.sql", "V2__b.sql", "V9__i.sql"), "db")
	require.NoError(t, err)
	var versions []int
	for _, m := range got {
		versions = append(versions, m.Version)
	}
	require.Equal(t, []int{1, 2, 9, 10, 11}, versions)

	require.Equal(t, "V10__j.sql", got[3].Script)
	require.Equal(t, "-- V10__j.sql\nSELECT 1;\n", got[3].SQL)
	require.Equal(t, migrate.Checksum([]byte(got[3].SQL)), got[3].Checksum)
}

func TestLoadFSDescription(t *testing.T) {
	t.Parallel()
	got, err := migrate.LoadFS(files("V6__add_consumption_and_leases.sql"), "db")
	require.NoError(t, err)
	require.Equal(t, "add consumption and leases", got[0].Description)
}

func TestLoadFSRejectsBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"one underscore", []string{"V1_create.sql"}, "V1_create.sql"},
		{"lower-case v", []string{"v1__create.sql"}, "v1__create.sql"},
		{"no version", []string{"V__create.sql"}, "V__create.sql"},
		{"no description", []string{"V1__.sql"}, "V1__.sql"},
		{"other extension", []string{"V1__create.txt"}, "V1__create.txt"},
		{"stray file", []string{"V1__create.sql", "README.md"}, "README.md"},
		{"dash in description", []string{"V1__create-outbox.sql"}, "V1__create-outbox.sql"},
		{"repeatable migration", []string{"R__views.sql"}, "R__views.sql"},
		{"version beyond int", []string{"V99999999999999999999__x.sql"}, "V99999999999999999999__x.sql"},
		{"duplicate version", []string{"V1__create.sql", "V2__a.sql", "V2__b.sql"}, "share version 2"},
		{"duplicate after leading zero", []string{"V1__create.sql", "V01__again.sql"}, "share version 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := migrate.LoadFS(files(tc.files...), "db")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestLoadFSMissingDirectory(t *testing.T) {
	t.Parallel()
	_, err := migrate.LoadFS(files("V1__a.sql"), "nope")
	require.ErrorContains(t, err, "nope")
}

// The documented file list of "Use custom tables", the same in both
// dialects, so one version means one change on either database.
var documented = []string{
	"V1__create_outbox.sql",
	"V2__create_inbox.sql",
	"V3__add_claimed_at.sql",
	"V4__add_last_error.sql",
	"V5__add_correlation_id.sql",
	"V6__add_consumption_and_leases.sql",
	"V7__capture_state.sql",
	"V8__add_pull_claim_indexes.sql",
	"V9__add_aggregate_type.sql",
	"V10__add_inbox_headers.sql",
	"V11__add_outbox_sequence.sql",
	"V12__add_relay_claim_indexes.sql",
	"V13__add_workbench.sql",
	"V14__add_outbox_unkeyed_due_indexes.sql",
	"V15__add_destination_pauses.sql",
	"V16__add_outbox_lanes.sql",
	"V17__add_outbox_attempts.sql",
	"V18__add_requeue_counts.sql",
}

func TestLoadBundledMigrations(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{migrations.Postgres, migrations.SQLServer} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			got, err := migrate.Load(dialect)
			require.NoError(t, err)
			var scripts []string
			prev := 0
			for _, m := range got {
				require.Greater(t, m.Version, prev)
				prev = m.Version
				require.NotEmpty(t, m.SQL)
				scripts = append(scripts, m.Script)
			}
			require.Equal(t, documented, scripts)
		})
	}
	_, err := migrate.Load("oracle")
	require.Error(t, err)
}

func TestChecksum(t *testing.T) {
	t.Parallel()
	lf := []byte("CREATE TABLE outbox (\n    id UUID\n);\n")
	// Flyway's CRC32 runs over the lines without their line endings.
	want := int32(crc32.ChecksumIEEE([]byte("CREATE TABLE outbox (    id UUID);")))
	require.Equal(t, want, migrate.Checksum(lf))

	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"CRLF", []byte("CREATE TABLE outbox (\r\n    id UUID\r\n);\r\n")},
		{"BOM", append([]byte("\xef\xbb\xbf"), lf...)},
		{"BOM and CRLF", []byte("\xef\xbb\xbfCREATE TABLE outbox (\r\n    id UUID\r\n);\r\n")},
		{"no final newline", []byte("CREATE TABLE outbox (\n    id UUID\n);")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, migrate.Checksum(tc.body))
		})
	}
	require.NotEqual(t, want, migrate.Checksum([]byte("CREATE TABLE outbox (\n    id UUID\n) ;\n")))
	// A line longer than bufio's default token still hashes.
	long := make([]byte, 200*1024)
	for i := range long {
		long[i] = 'x'
	}
	require.Equal(t, int32(crc32.ChecksumIEEE(long)), migrate.Checksum(append(long, '\n')))
}

func known(versions ...int) []migrate.Migration {
	var out []migrate.Migration
	for _, v := range versions {
		out = append(out, migrate.Migration{Version: v, Script: "V" + strconv.Itoa(v) + "__m.sql", Checksum: int32(v * 100)})
	}
	return out
}

func applied(v int, checksum int32, ok bool) migrate.Applied {
	return migrate.Applied{Version: v, Script: "V" + strconv.Itoa(v) + "__m.sql", Checksum: &checksum, Success: ok}
}

func versions(ms []migrate.Migration) []int {
	out := []int{}
	for _, m := range ms {
		out = append(out, m.Version)
	}
	return out
}

func TestPlan(t *testing.T) {
	t.Parallel()
	all := known(1, 2, 3, 4, 10, 11)
	for _, tc := range []struct {
		name     string
		history  []migrate.Applied
		pending  []int
		warnings int
		err      []string
	}{
		{name: "fresh database", pending: []int{1, 2, 3, 4, 10, 11}},
		{name: "partly migrated", history: []migrate.Applied{applied(1, 100, true), applied(2, 200, true)}, pending: []int{3, 4, 10, 11}},
		{name: "up to date", history: []migrate.Applied{
			applied(1, 100, true), applied(2, 200, true), applied(3, 300, true), applied(4, 400, true),
			applied(10, 1000, true), applied(11, 1100, true),
		}, pending: []int{}},
		{name: "history without checksum", history: []migrate.Applied{{Version: 1, Script: "V1__m.sql", Success: true}}, pending: []int{2, 3, 4, 10, 11}},
		{name: "checksum mismatch warns", history: []migrate.Applied{applied(1, 100, true), applied(2, 999, true)}, pending: []int{3, 4, 10, 11}, warnings: 1},
		// A newer QueueBox migrated further: this one runs against that
		// schema (the compatibility policy), so it warns and applies nothing.
		{name: "unknown newer version", history: []migrate.Applied{
			applied(1, 100, true), applied(2, 200, true), applied(3, 300, true), applied(4, 400, true),
			applied(10, 1000, true), applied(11, 1100, true), applied(12, 1200, true),
		}, pending: []int{}, warnings: 1},
		{name: "unknown version above a gap", history: []migrate.Applied{applied(1, 100, true), applied(12, 1200, true)},
			err: []string{"V2", "never applied", "V12"}},
		{name: "failed migration", history: []migrate.Applied{applied(1, 100, true), applied(2, 200, false)},
			err: []string{"V2", "V2__m.sql", "failed"}},
		{name: "out of order", history: []migrate.Applied{applied(1, 100, true), applied(3, 300, true)},
			err: []string{"V2", "never applied", "V3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pending, warnings, err := migrate.Plan(all, tc.history)
			if tc.err != nil {
				require.Error(t, err)
				for _, want := range tc.err {
					require.ErrorContains(t, err, want)
				}
				require.Nil(t, pending)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.pending, versions(pending))
			require.Len(t, warnings, tc.warnings)
		})
	}
}

func TestPlanChecksumWarningNamesBothValues(t *testing.T) {
	t.Parallel()
	_, warnings, err := migrate.Plan(known(1, 2), []migrate.Applied{applied(1, 100, true), applied(2, 12345, true)})
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], "V2")
	require.Contains(t, warnings[0], "12345")
	require.Contains(t, warnings[0], "200")
}

func TestPlanUnknownVersionWarningNamesIt(t *testing.T) {
	t.Parallel()
	pending, warnings, err := migrate.Plan(known(1, 2), []migrate.Applied{applied(1, 100, true), applied(2, 200, true), applied(3, 300, true)})
	require.NoError(t, err)
	require.Empty(t, pending)
	require.Len(t, warnings, 1)
	for _, want := range []string{"V3", "V3__m.sql", "newer QueueBox", "V1 to V2"} {
		require.Contains(t, warnings[0], want)
	}
}

func TestSplitBatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script string
		want   []string
	}{
		{"no separator", "SELECT 1;\n", []string{"SELECT 1;"}},
		{"GO lines", "SELECT 1;\nGO\nSELECT 2;\nGO\n", []string{"SELECT 1;", "SELECT 2;"}},
		{"any case and spaces", "SELECT 1;\n  go  \nSELECT 2;\n\tGo\nSELECT 3;", []string{"SELECT 1;", "SELECT 2;", "SELECT 3;"}},
		{"CRLF", "SELECT 1;\r\nGO\r\nSELECT 2;\r\n", []string{"SELECT 1;", "SELECT 2;"}},
		{"empty batches dropped", "GO\n\nGO\n  \nSELECT 1;\nGO\nGO\n", []string{"SELECT 1;"}},
		{"only separators", "GO\ngo\n", nil},
		{"GO inside a line is no separator", "SELECT 'GO';\nGOTO done;\n-- GO\nGO", []string{"SELECT 'GO';\nGOTO done;\n-- GO"}},
		{"multi-line batch kept whole", "CREATE TABLE t (\n  a INT\n);\nGO\n", []string{"CREATE TABLE t (\n  a INT\n);"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, migrate.SplitBatches(tc.script))
		})
	}
}
