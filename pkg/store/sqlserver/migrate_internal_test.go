package sqlserver

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/migrate"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
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

// TestSchemaGuardPrintsTSQL checks the statements the guard prints for a
// mapped table that lacks both checked columns (16_Use_custom_tables.md).
func TestSchemaGuardPrintsTSQL(t *testing.T) {
	t.Parallel()
	l := schematest.MappedLayout(schema.SQLServer)
	got := missingColumns(l, map[string]bool{}, map[string]bool{}, "database.columnMapping.inbox.headers", "database.columnMapping.outbox.sequence")
	require.Len(t, got, 2)
	require.Contains(t, got[0], "ALTER TABLE [qb_inbox] ADD [ib_headers] NVARCHAR(MAX) NOT NULL DEFAULT '{}';")
	require.Contains(t, got[1], "ALTER TABLE [qb_outbox] ADD [ob_sequence] BIGINT IDENTITY(1,1) NOT NULL;")
	require.Contains(t, got[1], "CREATE INDEX [ix_qb_outbox_key_sequence] ON [qb_outbox] ([ob_key], [ob_sequence]) WHERE [ob_state] IN ('pending', 'processing');")
	require.Empty(t, missingColumns(l, map[string]bool{"ib_headers": true}, map[string]bool{"ob_sequence": true}, "", ""))
}
