package capture

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReplicationQueryQuotesEachSetting(t *testing.T) {
	t.Parallel()
	s := Settings{Publication: "pub'; DROP TABLE outbox; --", Schema: "public", Table: "outbox", Slot: "slot_a"}
	sql, err := replicationQuery("publication_table_find", s)
	require.NoError(t, err)
	require.Contains(t, sql, `pubname = 'pub''; DROP TABLE outbox; --'`)
	require.Contains(t, sql, "schemaname = 'public' AND tablename = 'outbox'")
	sql, err = replicationQuery("slot_find", s)
	require.NoError(t, err)
	require.Contains(t, sql, "slot_name = 'slot_a'")
}

// TestEveryQueryRenders: a statement whose template does not parse, or
// that names a setting Settings lacks, fails here rather than at the
// first start.
func TestEveryQueryRenders(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(queries, "queries/*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "queries/"), ".sql")
		sql, err := replicationQuery(name, Settings{Slot: "s", Publication: "p", Schema: "public", Table: "outbox"})
		require.NoError(t, err, name)
		require.NotContains(t, sql, "{{", name)
	}
}
