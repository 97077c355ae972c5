package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The destinations page and the undelivered view read the outbox and the
// ledger per destination column.

// finishedRowsOfAPI claims four rows of destination "api" and finishes
// them sent, failed (HTTP 503, another attempt follows), dead (HTTP 400)
// and deferred, each with its attempt in the ledger; it returns the ids
// in that order.
func finishedRowsOfAPI(t *testing.T, db Database, clock *Clock) []string {
	ctx := context.Background()
	rows := make([]OutboxRow, 4)
	for i := range rows {
		rows[i] = OutboxRow{Topic: "order.created", Key: key(string(rune('a' + i))), Destination: "api"}
	}
	db.InsertOutbox(t, rows...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 4)
	require.NoError(t, err)
	require.Len(t, got, 4)
	byKey := map[string]queuebox.ClaimedMessage{}
	for _, m := range got {
		byKey[m.Key] = m
	}
	start := clock.Now().Add(-time.Minute).Truncate(time.Millisecond)
	ok, retry := sent(byKey["a"].Lease()), queuebox.Retry(time.Hour, "HTTP 503")
	dead, deferred := queuebox.Dead("HTTP 400"), queuebox.Defer(time.Hour)
	retry.Lease, dead.Lease, deferred.Lease = byKey["b"].Lease(), byKey["c"].Lease(), byKey["d"].Lease()
	ok.Attempt = facts(1, start, "200", "", "")
	retry.Attempt = facts(1, start, "503", "busy", queuebox.ClassHTTP5xx)
	dead.Attempt = facts(1, start, "400", "bad", queuebox.ClassHTTP4xx)
	deferred.Attempt = facts(0, start, "", "breaker open", queuebox.ClassCircuitOpen)
	outcomes := []queuebox.Outcome{ok, retry, dead, deferred}
	for i := range outcomes {
		outcomes[i].Destination = "api"
	}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, 4)
	return []string{byKey["a"].ID, byKey["b"].ID, byKey["c"].ID, byKey["d"].ID}
}

// The undelivered view lists the dead row and the retrying one, never
// the sent or the deferred one, each with the class of its latest
// attempt; it pages with the list's cursor, counts the whole selection
// per destination and class, and a destination selects its rows alone.
func undeliveredListsDeadAndRetryingRows(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	ids := finishedRowsOfAPI(t, db, clock)
	wb := workbenchOf(t, db.Stores(t, clock.Now))
	f := queuebox.UndeliveredFilter{Since: time.Now().Add(-time.Hour)}

	first, err := wb.Undelivered(ctx, f, 1, queuebox.Cursor{})
	require.NoError(t, err)
	require.Len(t, first.Items, 1)
	require.NotNil(t, first.Next, "a full page has a next one")
	second, err := wb.Undelivered(ctx, f, 1, *first.Next)
	require.NoError(t, err)
	require.Len(t, second.Items, 1)
	third, err := wb.Undelivered(ctx, f, 1, *second.Next)
	require.NoError(t, err)
	require.Empty(t, third.Items)

	got := map[string]queuebox.Undelivered{}
	for _, u := range append(first.Items, second.Items...) {
		got[u.Message.ID] = u
	}
	require.Contains(t, got, ids[1], "the retrying row")
	require.Contains(t, got, ids[2], "the dead row")
	require.Equal(t, queuebox.StateDead, got[ids[2]].Message.State)
	require.Equal(t, queuebox.ClassHTTP4xx, got[ids[2]].Class)
	require.Equal(t, queuebox.AttemptDead, got[ids[2]].LastOutcome)
	require.Equal(t, "400", got[ids[2]].Status)
	require.NotNil(t, got[ids[2]].LastAttempt)
	require.Equal(t, queuebox.ClassHTTP5xx, got[ids[1]].Class)
	require.Equal(t, queuebox.AttemptFailed, got[ids[1]].LastOutcome)

	dest := OutboxRow{Destination: "api"}.DestinationColumn()
	require.ElementsMatch(t, []queuebox.UndeliveredCount{
		{Destination: dest, Class: queuebox.ClassHTTP4xx, Dead: 1},
		{Destination: dest, Class: queuebox.ClassHTTP5xx, Retrying: 1},
	}, first.Counts, "the counts of the whole selection, on every page")

	none, err := wb.Undelivered(ctx, queuebox.UndeliveredFilter{Since: f.Since, Destination: "other"}, 10, queuebox.Cursor{})
	require.NoError(t, err)
	require.Empty(t, none.Items)
	require.Empty(t, none.Counts)
	later, err := wb.Undelivered(ctx, queuebox.UndeliveredFilter{Since: time.Now().Add(3 * time.Hour)}, 10, queuebox.Cursor{})
	require.NoError(t, err)
	require.Empty(t, later.Items, "nothing changed after since")
}

// The destinations page: the pending rows per destination with the age of
// the oldest, and the ledger's sent and failed attempts per minute, the
// recent ones apart; deferrals count in neither.
func destinationActivityCountsPendingAndAttempts(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	finishedRowsOfAPI(t, db, clock)
	wb := workbenchOf(t, db.Stores(t, clock.Now))
	// The attempts started a minute before the test clock, which runs an
	// hour ahead of the database's: within the last hour and the last
	// five minutes by the database clock.
	act, err := wb.DestinationActivity(ctx, time.Hour, 5*time.Minute)
	require.NoError(t, err)
	var pending int64
	for _, p := range act.Pending {
		require.Equal(t, "order.created", p.Topic)
		require.Equal(t, OutboxRow{Destination: "api"}.DestinationColumn(), p.Destination)
		require.GreaterOrEqual(t, p.Oldest, time.Duration(0))
		pending += p.Rows
	}
	require.EqualValues(t, 2, pending, "the retrying row and the deferred one")
	var sent, failed, recentSent, recentFailed int64
	for _, m := range act.Minutes {
		require.Equal(t, "api", m.Destination)
		require.Equal(t, m.Minute, m.Minute.Truncate(time.Minute), "a minute's start")
		sent, failed, recentSent, recentFailed = sent+m.Sent, failed+m.Failed, recentSent+m.RecentSent, recentFailed+m.RecentFailed
	}
	require.Equal(t, [4]int64{1, 2, 1, 2}, [4]int64{sent, failed, recentSent, recentFailed})
}
