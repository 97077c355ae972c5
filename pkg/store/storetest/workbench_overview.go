package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The overview's per-topic maps are bounded in SQL: with 120 topics that
// hold dead rows and 120 that hold pending rows, each map keeps the top
// OverviewTop (the most dead rows, the oldest pending row) and the rest
// come summed in one Other.
func workbenchOverviewBoundsTopics(t *testing.T, db Database) {
	old := time.Now().Add(-2 * time.Hour)
	var rows []OutboxRow
	for i := range 120 {
		dead, pending := OutboxRow{Topic: fmt.Sprintf("rest.%03d", i), State: queuebox.StateDead}, 2
		if i < queuebox.OverviewTop {
			dead.Topic, pending = fmt.Sprintf("top.%03d", i), 1
			rows = append(rows, dead, dead)
		}
		rows = append(rows, dead)
		for range pending {
			p := OutboxRow{Topic: fmt.Sprintf("new.%03d", i)}
			if i < queuebox.OverviewTop {
				p = OutboxRow{Topic: fmt.Sprintf("old.%03d", i), CreatedAt: old}
			}
			rows = append(rows, p)
		}
	}
	db.InsertOutbox(t, rows...)
	db.InsertInbox(t, InboxRow{Source: "stripe", IdempotencyKey: "k", State: queuebox.StateDead})

	o, err := workbenchStore(t, db).Overview(context.Background())
	require.NoError(t, err)
	require.Len(t, o.DeadByTopic, queuebox.OverviewTop)
	for topic, n := range o.DeadByTopic {
		require.Regexp(t, `^top\.`, topic)
		require.EqualValues(t, 3, n, topic)
	}
	require.Equal(t, queuebox.OverviewOther{Names: 70, Rows: 70}, o.DeadByTopicOther)

	require.Len(t, o.OldestPendingByTopic, queuebox.OverviewTop)
	for topic, age := range o.OldestPendingByTopic {
		require.Regexp(t, `^old\.`, topic)
		require.Greater(t, age, time.Hour, topic)
	}
	require.EqualValues(t, 70, o.OldestPendingByTopicOther.Names)
	require.EqualValues(t, 140, o.OldestPendingByTopicOther.Rows)
	require.Less(t, o.OldestPendingByTopicOther.OldestPending, time.Hour)

	require.Equal(t, map[string]int64{"stripe": 1}, o.DeadBySource)
	require.Zero(t, o.DeadBySourceOther, "every source fits")
	require.Zero(t, o.OldestPendingBySourceOther)
}
