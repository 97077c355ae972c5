package postgres

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
)

func TestReplicationQueryQuotesEachSetting(t *testing.T) {
	t.Parallel()
	s := capture.Settings{Publication: "pub'; DROP TABLE outbox; --", Schema: "public", Table: "outbox", Slot: "slot_a"}
	sql, err := replicationQuery(publicationTableFindSQL, s)
	require.NoError(t, err)
	require.Contains(t, sql, `pubname = 'pub''; DROP TABLE outbox; --'`)
	require.Contains(t, sql, "schemaname = 'public' AND tablename = 'outbox'")
	sql, err = replicationQuery(slotFindSQL, s)
	require.NoError(t, err)
	require.Contains(t, sql, "slot_name = 'slot_a'")
}

// TestEveryQueryRenders: a statement whose template does not parse, or
// that names a setting Settings lacks, fails here rather than at the
// first start.
func TestEveryQueryRenders(t *testing.T) {
	t.Parallel()
	for _, text := range []string{captureStateFindSQL, captureStateInsertSQL, captureStateTouchSQL, ownerLockTrySQL,
		publicationFindSQL, publicationTableFindSQL, slotFindSQL, slotLagSQL, slotPositionSQL} {
		require.NotEmpty(t, strings.TrimSpace(text))
		sql, err := replicationQuery(text, capture.Settings{Slot: "s", Publication: "p", Schema: "public", Table: "outbox"})
		require.NoError(t, err, text)
		require.NotContains(t, sql, "{{", text)
	}
}
