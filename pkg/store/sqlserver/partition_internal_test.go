package sqlserver

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
)

// TestPartitionStatements compares the T-SQL of partitioning, rendered
// for the default layout and for one that renames every table and
// column, with its golden files (testdata/partitions*). No SQL Server
// runs here: the goldens are the review surface. Run with -update to
// accept a change on purpose.
func TestPartitionStatements(t *testing.T) {
	t.Parallel()
	for dir, l := range map[string]schema.Layout{
		"partitions":        schematest.DefaultLayout(schema.SQLServer),
		"partitions_mapped": schematest.MappedLayout(schema.SQLServer),
	} {
		t.Run(dir, func(t *testing.T) {
			stmts, err := partitionStatements(l)
			require.NoError(t, err)
			schematest.Golden(t, filepath.Join("testdata", dir), ".golden", stmts, *update)
		})
	}
}

// TestPartitionStatementsAreTSQL holds the partition statements to the
// rules of every other T-SQL statement (TestStatementsAreTSQL), and
// checks that each table's statements name only that table and its own
// function and scheme.
func TestPartitionStatementsAreTSQL(t *testing.T) {
	t.Parallel()
	stmts, err := partitionStatements(schematest.MappedLayout(schema.SQLServer))
	require.NoError(t, err)
	for name, sql := range stmts {
		code := stripComments(sql)
		require.Empty(t, pgOnly.FindAllString(code, -1), "%s holds PostgreSQL text", name)
		bare := regexp.MustCompile(`(^|[^\[A-Za-z_])(ob|ib)_[a-z_]+`).FindAllString(code, -1)
		require.Empty(t, bare, "%s names a mapped column without brackets", name)
		other := map[bool]string{true: "qb_inbox", false: "qb_outbox"}[strings.HasSuffix(name, "_outbox")]
		if name != "inbox_insert_partitioned" {
			require.NotContains(t, code, other, "%s names the other table", name)
		}
	}
}

// TestEveryPartitionTemplateIsRendered keeps partitionStatementNames in
// step with the files: a partition template that nothing renders would
// escape its golden file.
func TestEveryPartitionTemplateIsRendered(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(queries, "queries/partition_*.sql")
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".sql"))
	}
	require.ElementsMatch(t, partitionStatementNames, names)
}
