package sqlserver

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/migrate"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
	"github.com/alternayte/queuebox/pkg/store/internal/startup"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// TestMigrateAppliesEachFileBatchByBatch runs the runner against a fake
// history that lists V1 to V10: it takes the session lock, creates the
// history table if missing, and applies every later file (V11 on) each in
// its own transaction, one Exec per GO batch, then records them with Flyway's
// checksum.
func TestMigrateAppliesEachFileBatchByBatch(t *testing.T) {
	t.Parallel()
	known, err := migrate.Load("sqlserver")
	require.NoError(t, err)
	var history [][]any
	for _, m := range known[:10] {
		history = append(history, []any{int64(m.Version), fmt.Sprint(m.Version), m.Script, int64(m.Checksum), true})
	}
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		switch {
		case strings.HasPrefix(c.SQL, "SELECT installed_rank"):
			return sqlfake.Result{Columns: []string{"a", "b", "c", "d", "e"}, Rows: history}
		case strings.HasPrefix(c.SQL, "SELECT COALESCE(MAX(installed_rank)"):
			return sqlfake.Result{Rows: [][]any{{int64(10)}}}
		}
		return sqlfake.Result{}
	})
	applied, err := db.Migrate(t.Context(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	rest := known[10:]
	var want []int
	wantBatches := 0
	for _, m := range rest {
		want = append(want, m.Version)
		wantBatches += len(migrate.SplitBatches(m.SQL))
	}
	require.Equal(t, want, applied)

	calls := fake.Calls()
	require.Contains(t, calls[0].SQL, "@LockOwner = 'Session'")
	require.Contains(t, calls[1].SQL, "IF OBJECT_ID(N'flyway_schema_history', N'U') IS NULL")
	var batches, records int
	inTx := false
	for _, c := range calls {
		switch {
		case c.SQL == sqlfake.Begin:
			inTx = true
		case c.SQL == sqlfake.Commit:
			inTx = false
		case strings.HasPrefix(c.SQL, "INSERT INTO flyway_schema_history"):
			records++
			require.Equal(t, 10+records, c.Args[0])
			m := known[9+records]
			require.Equal(t, []any{fmt.Sprint(m.Version), m.Description, m.Script, m.Checksum}, c.Args[1:5])
		case inTx:
			batches++
			require.NotContains(t, c.SQL, "\nGO\n", "a batch never carries its separator")
		}
	}
	require.Equal(t, len(rest), records)
	require.Equal(t, wantBatches, batches)
	require.Contains(t, calls[len(calls)-1].SQL, "sp_releaseapplock")
}

func TestMigrateStopsAtAFailingBatchAndRecordsNothing(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.HasPrefix(c.SQL, "CREATE TABLE outbox") {
			return sqlfake.Result{Err: mssql.Error{Number: 2714, Message: "There is already an object named 'outbox'"}}
		}
		return sqlfake.Result{}
	})
	applied, err := db.Migrate(t.Context(), slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "V1__create_outbox.sql, batch 2")
	require.Empty(t, applied)
	require.Equal(t, []string{sqlfake.Rollback}, lastSteps(fake, 2)[:1])
	for _, c := range fake.Calls() {
		require.NotContains(t, c.SQL, "INSERT INTO flyway_schema_history")
	}
}

func lastSteps(fake *sqlfake.DB, n int) []string {
	steps := fake.Steps(sqlfake.Rollback)
	return steps[len(steps)-n:]
}

// TestSchemaGuardPrintsTSQL compares the messages the guard prints for a
// mapped table that lacks checked columns (16_Use_custom_tables.md) with
// testdata/guard/<case>.golden: the T-SQL a user runs is the review
// surface. Run with -update to accept a change on purpose.
func TestSchemaGuardPrintsTSQL(t *testing.T) {
	t.Parallel()
	l := schematest.MappedLayout(schema.SQLServer)
	inbox := map[string]bool{"ib_headers": true}
	outbox := func(cols ...string) map[string]bool {
		m := map[string]bool{}
		for _, c := range cols {
			m[c] = true
		}
		return m
	}
	cases := map[string]struct{ inbox, outbox map[string]bool }{
		// A table of a release before V10: every checked column.
		"all_missing": {map[string]bool{}, map[string]bool{}},
		// A custom table kept up to V15: the two columns of lanes.
		"lanes_missing": {inbox, outbox("ob_sequence")},
		// The sequence alone: the lane index comes with it.
		"sequence_missing": {inbox, outbox("ob_destination", "ob_originid")},
	}
	got := map[string]string{}
	for name, tc := range cases {
		missing, gaps := missingColumns(l, tc.inbox, tc.outbox, startup.ColumnKeys)
		got[name] = strings.Join(append(missing, gaps...), "\n")
	}
	schematest.Golden(t, filepath.Join("testdata", "guard"), ".golden", got, *update)

	missing, gaps := missingColumns(l, map[string]bool{}, map[string]bool{}, startup.ColumnKeys)
	require.Len(t, missing, 2, "the required columns stop the start")
	require.Len(t, gaps, 2, "the lane columns are reported, the table runs in key order")
	all := append(missing, gaps...)
	for i, key := range []string{"inbox.headers", "outbox.sequence", "outbox.destination", "outbox.originId"} {
		require.Contains(t, all[i], "(database.columnMapping."+key+")")
	}
	require.NotContains(t, all[1], "CREATE INDEX", "the lane index needs the destination column, added after")
	require.Contains(t, all[2], "CREATE INDEX [ix_qb_outbox_lane_sequence] ON [qb_outbox] ([ob_key], [ob_destination], [ob_sequence]) WHERE [ob_state] IN ('pending', 'processing') AND [ob_key] > '';")
	missing, gaps = missingColumns(l, inbox, outbox("ob_sequence", "ob_destination", "ob_originid"), startup.ColumnKeys)
	require.Empty(t, missing)
	require.Empty(t, gaps)
}
