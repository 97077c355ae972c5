package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The delivery ledger: the outcome write records one attempt for each
// outcome it keeps, in the same statement, and none for a row whose
// fence failed. The suite reads the ledger through the workbench's
// LedgerReader, the one read path.

func workbenchOf(t *testing.T, stores queuebox.Stores) queuebox.WorkbenchStore {
	t.Helper()
	wb, err := stores.Workbench()
	require.NoError(t, err)
	return wb
}

// attemptsOf reads every attempt of the rows ids, newest first.
func attemptsOf(t *testing.T, db Database, ids ...string) []queuebox.Attempt {
	t.Helper()
	got, err := workbenchOf(t, db.Stores(t, time.Now)).Attempts(context.Background(), ids, 1000)
	require.NoError(t, err)
	return got
}

// facts are the attempt facts of a publish that started at start.
func facts(number int, start time.Time, status, answer string, class queuebox.AttemptClass) queuebox.AttemptFacts {
	return queuebox.AttemptFacts{Number: number, StartedAt: start, Duration: 1500 * time.Millisecond,
		Status: status, Answer: answer, Class: class}
}

// Four outcomes of one write, one of each kind, each with the facts of
// its attempt, and a fifth whose fence fails: the ledger holds one
// attempt per kept outcome, in the ledger's words, with the facts as
// given, and nothing of the lost row. A later try of the same write
// (FinishAgain after a lost answer) records nothing twice.
func ledgerRecordsOneAttemptPerKeptOutcome(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(nil, 5)...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 5)
	require.NoError(t, err)
	require.Len(t, got, 5)
	start := clock.Now().Add(-time.Minute).Truncate(time.Millisecond)

	ok, retry := sent(got[0].Lease()), queuebox.Retry(time.Hour, "HTTP 503")
	deferred, dead := queuebox.Defer(time.Minute), queuebox.Dead("No route matches topic order.created")
	retry.Lease, deferred.Lease, dead.Lease = got[1].Lease(), got[2].Lease(), got[3].Lease()
	ok.Attempt = facts(0, start, "200", "", "")
	retry.Attempt = facts(2, start, "503", `{"error":"busy"}`, queuebox.ClassHTTP5xx)
	deferred.Attempt = facts(0, start, "", "breaker open", queuebox.ClassCircuitOpen)
	dead.Attempt = facts(0, start, "", "No route matches topic order.created", queuebox.ClassNoRoute)
	for _, oc := range []*queuebox.Outcome{&ok, &retry, &deferred, &dead} {
		oc.Destination = "api"
	}
	lost := sent(queuebox.Lease{ID: got[4].ID, Token: staleToken})
	lost.Attempt = facts(0, start, "200", "", "")
	outcomes := []queuebox.Outcome{ok, retry, deferred, dead, lost}

	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, 4)
	ids := claimedIDs(got)
	attempts := attemptsOf(t, db, ids...)
	require.Len(t, attempts, 4, "one attempt per kept outcome, none for the lost fence")
	byRow := map[string]queuebox.Attempt{}
	for _, a := range attempts {
		require.NotContains(t, byRow, a.OutboxID, "one attempt per row")
		byRow[a.OutboxID] = a
		require.Equal(t, a.OutboxID, a.MessageID, "a row the application wrote is its own message")
		require.Equal(t, "api", a.Destination)
		require.WithinDuration(t, start, a.StartedAt, time.Millisecond)
		require.Equal(t, 1500*time.Millisecond, a.Duration)
		require.False(t, a.RecordedAt.IsZero())
	}
	require.NotContains(t, byRow, got[4].ID)
	for id, want := range map[string]queuebox.Attempt{
		got[0].ID: {Number: 0, Outcome: queuebox.AttemptSent, Status: "200"},
		got[1].ID: {Number: 2, Outcome: queuebox.AttemptFailed, Status: "503", Answer: `{"error":"busy"}`, Class: queuebox.ClassHTTP5xx},
		got[2].ID: {Number: 0, Outcome: queuebox.AttemptDeferred, Answer: "breaker open", Class: queuebox.ClassCircuitOpen},
		got[3].ID: {Number: 0, Outcome: queuebox.AttemptDead, Answer: "No route matches topic order.created", Class: queuebox.ClassNoRoute},
	} {
		a := byRow[id]
		require.Equal(t, want, queuebox.Attempt{Number: a.Number, Outcome: a.Outcome, Status: a.Status, Answer: a.Answer, Class: a.Class},
			"attempt of row %s", id)
	}

	again, err := o.FinishAgain(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, again, 4, "the earlier write counts as written")
	require.Len(t, attemptsOf(t, db, ids...), 4, "and records nothing twice")

	limited, err := workbenchOf(t, db.Stores(t, clock.Now)).Attempts(ctx, ids, 2)
	require.NoError(t, err)
	require.Len(t, limited, 2, "at most limit attempts")
}

// A delivery of a fan-out records the message it delivers: the id of the
// row the application wrote, which its destination received. An attempt
// without a start takes the store's clock, and the attempts of a row
// come newest first.
func ledgerNamesTheMessageOfEachDelivery(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	ids := db.InsertOutbox(t, OutboxRow{Topic: "payment.paid", Key: key("k"), Unrouted: true})
	o := outboxStore(t, db, clock)
	_, err := o.Assign(ctx, []queuebox.Assignment{{ID: ids[0], Destinations: []string{"ledger", "billing"}}})
	require.NoError(t, err)
	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 2)
	var outcomes []queuebox.Outcome
	for _, m := range got {
		r := queuebox.Retry(time.Minute, "HTTP 500")
		r.Lease, r.Attempt = m.Lease(), facts(0, time.Time{}, "500", "oops", queuebox.ClassHTTP5xx)
		outcomes = append(outcomes, r)
	}
	_, err = o.Finish(ctx, outcomes)
	require.NoError(t, err)
	clock.Advance(time.Minute)
	again, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, again, 2)
	outcomes = outcomes[:0]
	for _, m := range again {
		ok := sent(m.Lease())
		ok.Attempt = facts(1, time.Time{}, "204", "", "")
		outcomes = append(outcomes, ok)
	}
	_, err = o.Finish(ctx, outcomes)
	require.NoError(t, err)

	attempts := attemptsOf(t, db, claimedIDs(got)...)
	require.Len(t, attempts, 4)
	dests := map[string]int{}
	for i, a := range attempts {
		require.Equal(t, ids[0], a.MessageID, "every delivery records the message it delivers")
		dests[a.Destination]++
		wantStatus := "204"
		if i >= 2 {
			wantStatus = "500"
		}
		require.Equal(t, wantStatus, a.Status, "newest first")
		require.WithinDuration(t, clock.Now(), a.StartedAt, 2*time.Minute, "no start given: the store's clock")
	}
	require.Equal(t, map[string]int{"ledger": 2, "billing": 2}, dests)
}

// With the ledger's writes off (outbox.ledger.enabled false), the outcome
// write records nothing, and the rows end as they would with it.
func ledgerOffRecordsNothing(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(nil, 2)...)
	o, err := db.StoresWithoutLedger(t, clock.Now).Outbox(lease)
	require.NoError(t, err)
	got, err := o.Claim(ctx, 2)
	require.NoError(t, err)
	require.Len(t, got, 2)
	ok, retry := sent(got[0].Lease()), queuebox.Retry(time.Hour, "HTTP 503")
	retry.Lease = got[1].Lease()
	ok.Attempt, retry.Attempt = facts(0, clock.Now(), "200", "", ""), facts(0, clock.Now(), "503", "busy", queuebox.ClassHTTP5xx)
	kept, err := o.Finish(ctx, []queuebox.Outcome{ok, retry})
	require.NoError(t, err)
	require.Len(t, kept, 2)
	require.Empty(t, attemptsOf(t, db, claimedIDs(got)...))
	require.Equal(t, queuebox.StateSent, db.Outbox(t, got[0].ID).State)
	require.Equal(t, 1, db.Outbox(t, got[1].ID).Attempt)
}

// The ledger's cleanup deletes the attempts that started more than its
// bound ago, at most a batch per statement, whatever became of their
// rows, and keeps the younger ones.
func ledgerCleanupByAgeDeletesInBatches(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(nil, 5)...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 5)
	require.NoError(t, err)
	require.Len(t, got, 5)
	now := db.Now(t)
	var outcomes []queuebox.Outcome
	for i, m := range got {
		start := now.Add(-10 * 24 * time.Hour)
		if i >= 3 {
			start = now.Add(-time.Minute)
		}
		oc := sent(m.Lease())
		oc.Attempt = facts(0, start, "200", "", "")
		outcomes = append(outcomes, oc)
	}
	_, err = o.Finish(ctx, outcomes)
	require.NoError(t, err)

	r := retentionStore(t, db)
	var batches []int64
	for range 3 {
		n, err := r.LedgerByAge(ctx, 7*24*time.Hour, 2)
		require.NoError(t, err)
		batches = append(batches, n)
	}
	require.Equal(t, []int64{2, 1, 0}, batches)
	left := attemptsOf(t, db, claimedIDs(got)...)
	require.Len(t, left, 2)
	for _, a := range left {
		require.Contains(t, []string{got[3].ID, got[4].ID}, a.OutboxID, "the young attempts stay")
	}
	require.Len(t, db.OutboxRows(t), 5, "the outbox rows are not the ledger's to delete")
}
