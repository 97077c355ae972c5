package sqlserver

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The SQL Server workbench serves what the replay statements express:
// sent and dead outbox rows by ids, topics and time; anything else says
// it is not available instead of selecting more than asked.
func TestWorkbenchReplayFilterOnSQLServer(t *testing.T) {
	t.Parallel()
	final := []queuebox.State{queuebox.StateDead, queuebox.StateSent}
	ok := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: final, IDs: []string{"a"}, Topics: []string{"t"}}
	rf, err := replayFilter(ok)
	require.NoError(t, err)
	require.Equal(t, queuebox.ReplayFilter{IDs: []string{"a"}, Topics: []string{"t"}}, rf)
	for name, f := range map[string]queuebox.MessageFilter{
		"inbox":          {Table: queuebox.TableInbox},
		"dead only":      {Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead}},
		"an error":       {Table: queuebox.TableOutbox, Error: "x"},
		"with discarded": {Table: queuebox.TableOutbox, WithDiscarded: true},
	} {
		_, err := replayFilter(f)
		require.ErrorIs(t, err, errNoWorkbench, name)
	}
}
