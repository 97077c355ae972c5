// Package schematest holds what the statement tests of every store
// dialect share: a layout that renames every table and column, and the
// comparison of rendered statements with their golden files.
package schematest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
)

// MappedLayout names every table and column differently from its default
// and from each other, so a statement that takes one column for another,
// or the outbox's for the inbox's, shows in its golden file.
func MappedLayout(d schema.Dialect) schema.Layout {
	n := schema.DefaultNames()
	n.OutboxTable, n.InboxTable = "qb_outbox", "qb_inbox"
	for columns, prefix := range map[any]string{&n.Outbox: "ob_", &n.Inbox: "ib_"} {
		v := reflect.ValueOf(columns).Elem()
		for i := range v.NumField() {
			v.Field(i).SetString(prefix + strings.ToLower(v.Type().Field(i).Name))
		}
	}
	return schema.New(d, n)
}

// DefaultLayout is the layout of the bundled migrations' names.
func DefaultLayout(d schema.Dialect) schema.Layout {
	return schema.New(d, schema.DefaultNames())
}

// Golden compares each statement of got (name to text) with the file
// dir/<name><ext>; with update it first rewrites dir from got. Every file
// in dir must belong to a statement, so a removed statement shows too.
func Golden(t *testing.T, dir, ext string, got map[string]string, update bool) {
	t.Helper()
	if update {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, sql := range got {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+ext), []byte(sql+"\n"), 0o644))
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	require.NoError(t, err)
	require.Len(t, files, len(got), "one golden file per rendered statement in %s", dir)
	for name, sql := range got {
		want, err := os.ReadFile(filepath.Join(dir, name+ext))
		require.NoError(t, err, "golden file of %s (run with -update)", name)
		require.Equal(t, string(want), sql+"\n", "statement %s differs from %s (run with -update)", name, dir)
	}
}
