package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/startup"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// An outbox without the lane columns (a custom table made before them)
// starts in key order: the start turns lanes off, the claim takes the
// head of each key whatever the topic, the outcome and postponement
// write no destination, nothing is routed, and a fan-out is refused.
func TestOutboxWithoutLaneColumnsRunsInKeyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := pgtest.Migrated(t, 2)
	conn := s.Connect(t)
	_, err := conn.Exec(ctx, `ALTER TABLE outbox DROP COLUMN destination, DROP COLUMN origin_id;
		INSERT INTO outbox (topic, key, payload) VALUES
			('analytics.a', 'k', '{"n":1}'), ('audit.a', 'k', '{"n":2}'), ('audit.b', 'k2', '{"n":3}'), ('free', NULL, '{}')`)
	require.NoError(t, err)
	l, err := startup.Prepare(ctx, db, schema.New(schema.Postgres, schema.DefaultNames()), false, nil)
	require.NoError(t, err)
	require.False(t, l.O.Lanes, "the start turns lanes off")

	o, err := postgres.NewOutbox(db, l, time.Minute)
	require.NoError(t, err)
	require.False(t, queuebox.HasLanes(o))
	unrouted, err := o.Unrouted(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, unrouted)
	_, err = o.Assign(ctx, []queuebox.Assignment{{ID: "00000000-0000-0000-0000-000000000001", Destinations: []string{"a", "b"}}})
	require.ErrorIs(t, err, queuebox.ErrNoLanes)

	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	topics := map[string]bool{}
	for _, m := range got {
		topics[m.Topic] = true
		require.Empty(t, m.Destination)
	}
	require.Equal(t, map[string]bool{"analytics.a": true, "audit.b": true, "free": true}, topics,
		"the head of each key, whatever its topic, and the unkeyed row")
	outcomes := make([]queuebox.Outcome, len(got))
	for i, m := range got {
		outcomes[i] = queuebox.Sent()
		outcomes[i].Lease, outcomes[i].Destination = m.Lease(), "api"
	}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, 3)
	n, err := o.Postpone(ctx, queuebox.PostponeParams{Destination: "api", Topics: []string{"audit.a"}, Delay: time.Minute})
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "every pending row of the topics moves")

	wb, err := postgres.NewWorkbench(db, l)
	require.NoError(t, err)
	page, err := wb.List(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, Destination: "api",
		UnroutedTopics: []string{"audit.a", "audit.b"}}, 10, queuebox.Cursor{})
	require.NoError(t, err)
	require.Len(t, page.Items, 2, "a destination selects the rows of the topics routed there")
	got1, err := wb.Get(ctx, queuebox.TableOutbox, page.Items[0].ID)
	require.NoError(t, err)
	require.Empty(t, got1.Destination)
}
