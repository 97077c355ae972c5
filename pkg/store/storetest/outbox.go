package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// lease is the lease of every store the suite builds; the cases move the
// clock past it instead of waiting.
const lease = time.Minute

// staleToken is a token no claim issues.
const staleToken = "00000000-0000-0000-0000-000000000000"

func outboxStore(t *testing.T, db Database, clock *Clock) queuebox.OutboxStore {
	t.Helper()
	o, err := db.Stores(t, clock.Now).Outbox(lease)
	require.NoError(t, err)
	return o
}

func key(s string) *string { return &s }

// keyRows are n rows of one key (nil: no key), payloads {"n":1} to {"n":n}.
func keyRows(k *string, n int) []OutboxRow {
	rows := make([]OutboxRow, n)
	for i := range rows {
		rows[i] = OutboxRow{Topic: "order.created", Key: k, Payload: fmt.Sprintf(`{"n":%d}`, i+1)}
	}
	return rows
}

func sent(l queuebox.Lease) queuebox.Outcome {
	o := queuebox.Sent()
	o.Lease = l
	return o
}

func idSet(ids ...string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

func leaseIDs(leases []queuebox.Lease) []string {
	out := make([]string, len(leases))
	for i, l := range leases {
		out[i] = l.ID
	}
	return out
}

// A claim takes the head of each key and every unkeyed row; the next row
// of a key waits while its head is processing or waits for a retry, and
// a final head (sent or dead) releases the key to the next row in
// sequence order.
func outboxClaimTakesTheHeadOfEachKey(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(key("k1"), 3)...)
	db.InsertOutbox(t, keyRows(key("k2"), 3)...)
	db.InsertOutbox(t, keyRows(nil, 2)...)
	db.InsertOutbox(t, keyRows(key(""), 2)...)
	o := outboxStore(t, db, clock)

	got, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	byKey := map[string]int{}
	var k1 queuebox.ClaimedMessage
	for _, m := range got {
		byKey[m.Key]++
		if m.Key == "k1" {
			k1 = m
		}
	}
	require.Equal(t, map[string]int{"k1": 1, "k2": 1, "": 4}, byKey, "heads of k1 and k2, every unkeyed row")
	require.JSONEq(t, `{"n":1}`, string(k1.Payload), "the head is the first row of the key")
	again, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Empty(t, again, "the next rows of a key wait while the head is processing")

	retry := queuebox.Retry(time.Hour, "HTTP 503")
	retry.Lease = k1.Lease()
	kept, err := o.Finish(ctx, []queuebox.Outcome{retry})
	require.NoError(t, err)
	require.Equal(t, idSet(k1.ID), kept)
	again, err = o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Empty(t, again, "a retrying head holds back its key")

	clock.Advance(time.Hour)
	retried, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, retried, 1)
	require.Equal(t, k1.ID, retried[0].ID)
	require.Equal(t, 1, retried[0].Attempt)
	dead := queuebox.Dead("poison")
	dead.Lease = retried[0].Lease()
	kept, err = o.Finish(ctx, []queuebox.Outcome{dead})
	require.NoError(t, err)
	require.Equal(t, idSet(k1.ID), kept)

	for _, want := range []string{`{"n":2}`, `{"n":3}`} {
		next, err := o.Claim(ctx, 100)
		require.NoError(t, err)
		require.Len(t, next, 1, "a final head releases its key to the next row")
		require.JSONEq(t, want, string(next[0].Payload), "the rows of a key in sequence order")
		kept, err := o.Finish(ctx, []queuebox.Outcome{sent(next[0].Lease())})
		require.NoError(t, err)
		require.Len(t, kept, 1)
	}
}

// A claim skips rows that another statement holds (a concurrent claim of
// another replica) and takes the rows after them, instead of waiting or
// coming back empty.
func outboxClaimSkipsLockedRows(t *testing.T, db Database) {
	ctx := context.Background()
	nulls := db.InsertOutbox(t, keyRows(nil, 20)...)
	db.InsertOutbox(t, keyRows(key(""), 20)...)
	o := outboxStore(t, db, NewClock())
	held := db.Hold(t, OutboxTable, nulls[:10]...)
	defer held.Release(t)

	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 10, "the claim takes the rows after the held ones")
	for _, m := range got {
		require.NotContains(t, nulls[:10], m.ID)
	}
}

// claimOnlyRow inserts one row and claims it with a store on clock.
func claimOnlyRow(t *testing.T, db Database, clock *Clock) (queuebox.OutboxStore, []queuebox.ClaimedMessage) {
	t.Helper()
	db.InsertOutbox(t, keyRows(key("k"), 1)...)
	o := outboxStore(t, db, clock)
	claimed, err := o.Claim(context.Background(), 10)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	return o, claimed
}

// A retry returns the row to pending with attempt + 1 and its reason, due
// after its delay by the statement's clock, not before.
func outboxRetryWaitsForItsDelay(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(nil, 1)...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	retry := queuebox.Retry(10*time.Minute, "HTTP 503")
	retry.Lease = got[0].Lease()
	kept, err := o.Finish(ctx, []queuebox.Outcome{retry})
	require.NoError(t, err)
	require.Len(t, kept, 1)
	row := db.Outbox(t, got[0].ID)
	require.Equal(t, queuebox.StatePending, row.State)
	require.Equal(t, 1, row.Attempt)
	require.Equal(t, "HTTP 503", *row.LastError)
	require.Nil(t, row.LeaseExpiresAt)
	require.True(t, row.ScheduledAt.Equal(clock.Now().Add(10*time.Minute)), "due at %v, not %v", clock.Now().Add(10*time.Minute), row.ScheduledAt)

	clock.Advance(10*time.Minute - time.Millisecond)
	early, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, early, "not due before its delay")
	clock.Advance(time.Millisecond)
	due, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, 1, due[0].Attempt)
}

// A try of an outcome write can commit and lose its answer (the session
// ends after the commit). The next try's fence then fails on those rows;
// FinishAgain recognises them by their token and outcome, and still
// reports a row that another owner holds as lost.
func outboxFinishAgainCountsCommittedWrites(t *testing.T, db Database) {
	ctx := context.Background()
	db.InsertOutbox(t, keyRows(nil, 4)...)
	o := outboxStore(t, db, NewClock())
	got, err := o.Claim(ctx, 4)
	require.NoError(t, err)
	require.Len(t, got, 4)
	dead, retry := queuebox.Dead("HTTP 410"), queuebox.Retry(time.Hour, "HTTP 503")
	dead.Lease, retry.Lease = got[1].Lease(), got[2].Lease()
	outcomes := []queuebox.Outcome{sent(got[0].Lease()), dead, retry}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, 3)
	deadRow := db.Outbox(t, got[1].ID)
	require.Empty(t, deadRow.ClaimToken, "a dead row holds no claim")
	require.Nil(t, deadRow.LeaseExpiresAt, "a dead row holds no lease")

	again, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Empty(t, again, "the fence fails on rows already finished")

	stolen := queuebox.Lease{ID: got[3].ID, Token: staleToken}
	confirmed, err := o.FinishAgain(ctx, append(outcomes, sent(stolen)))
	require.NoError(t, err)
	require.Equal(t, idSet(got[0].ID, got[1].ID, got[2].ID), confirmed,
		"the three written rows count as written; the row under another token stays lost")
	states := make([]string, len(got))
	for i, m := range got {
		row := db.Outbox(t, m.ID)
		states[i] = fmt.Sprintf("%s:%d", row.State, row.Attempt)
	}
	require.Equal(t, []string{"sent:0", "dead:0", "pending:1", "processing:0"}, states, "written once, not twice")
}

// A deferral returns the row to pending after its delay with its attempt
// and last_error as they were and no lease, and the row stays the head of
// its key: the next row of the key waits for it. A later try confirms a
// deferral that committed unanswered.
func outboxDeferKeepsAttemptAndHoldsItsKey(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(key("k1"), 2)...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	retry := queuebox.Retry(time.Minute, "HTTP 503")
	retry.Lease = got[0].Lease()
	_, err = o.Finish(ctx, []queuebox.Outcome{retry})
	require.NoError(t, err)
	clock.Advance(time.Minute)
	got, err = o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)

	deferral := queuebox.Defer(10 * time.Minute)
	deferral.Lease = got[0].Lease()
	kept, err := o.Finish(ctx, []queuebox.Outcome{deferral})
	require.NoError(t, err)
	require.Equal(t, idSet(got[0].ID), kept)
	row := db.Outbox(t, got[0].ID)
	require.Equal(t, queuebox.StatePending, row.State)
	require.Equal(t, 1, row.Attempt, "no attempt spent")
	require.Equal(t, "HTTP 503", *row.LastError, "last_error kept")
	require.Nil(t, row.LeaseExpiresAt)
	require.True(t, row.ScheduledAt.Equal(clock.Now().Add(10*time.Minute)))
	again, err := o.FinishAgain(ctx, []queuebox.Outcome{deferral})
	require.NoError(t, err)
	require.Equal(t, idSet(got[0].ID), again, "a committed deferral counts as written")

	clock.Advance(10*time.Minute - time.Millisecond)
	early, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, early, "the deferred head holds back its key until it is due")
	clock.Advance(time.Millisecond)
	due, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, got[0].ID, due[0].ID, "still the head of its key")
	require.Equal(t, 1, due[0].Attempt)
}

// Postpone moves the due pending rows of the named topics, and only
// those, to the delay from now; a row scheduled later keeps its time, a
// processing row is left to its claim, and attempt and last_error stay.
// A postponed key keeps its order once it is due again.
func outboxPostponeMovesTheDueRowsOfItsTopics(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	store := outboxStore(t, db, clock)
	o, ok := store.(queuebox.Postponer)
	require.True(t, ok, "a dialect's outbox store implements queuebox.Postponer")
	later := clock.Now().Add(time.Hour)
	lastError := "HTTP 503"
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "slow.a", Key: key("k"), Payload: `{"n":1}`, Attempt: 2, LastError: &lastError},
		OutboxRow{Topic: "slow.a", Key: key("k"), Payload: `{"n":2}`},
		OutboxRow{Topic: "slow.b", Payload: `{}`, ScheduledAt: later},
		OutboxRow{Topic: "slow.b", Payload: `{}`, State: queuebox.StateProcessing},
		OutboxRow{Topic: "fast", Payload: `{}`})
	n, err := o.Postpone(ctx, queuebox.PostponeParams{Destination: DefaultDestination,
		Topics: []string{"slow.a", "slow.b"}, UnroutedTopics: []string{"slow.b"}, Delay: 10 * time.Minute})
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "the two due pending rows of the topics")
	due := clock.Now().Add(10 * time.Minute)
	head := db.Outbox(t, ids[0])
	require.True(t, head.ScheduledAt.Equal(due))
	require.Equal(t, queuebox.StatePending, head.State)
	require.Equal(t, 2, head.Attempt)
	require.Equal(t, lastError, *head.LastError)
	require.True(t, db.Outbox(t, ids[2]).ScheduledAt.Equal(later), "a later row keeps its time")
	require.Equal(t, queuebox.StateProcessing, db.Outbox(t, ids[3]).State)

	got, err := store.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, ids[4], got[0].ID, "only the other topic is claimed")
	n, err = o.Postpone(ctx, queuebox.PostponeParams{Destination: DefaultDestination, Delay: time.Minute})
	require.NoError(t, err)
	require.Zero(t, n)

	clock.Advance(10 * time.Minute)
	got, err = store.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, ids[0], got[0].ID, "the head of the key first")
}

// The reasons of a batch of outcomes reach last_error as they were, and
// the confirming read of FinishAgain finds them: quotes, backslashes,
// braces, commas, the word NULL and an empty reason are no syntax.
func outboxFinishKeepsEveryReason(t *testing.T, db Database) {
	ctx := context.Background()
	reasons := []string{`he said "no"`, `C:\path\`, `{a,b}`, `NULL`, ``, `é,€`}
	db.InsertOutbox(t, keyRows(nil, len(reasons))...)
	o := outboxStore(t, db, NewClock())
	got, err := o.Claim(ctx, len(reasons))
	require.NoError(t, err)
	require.Len(t, got, len(reasons))
	outcomes := make([]queuebox.Outcome, len(got))
	for i := range got {
		outcomes[i] = queuebox.Retry(time.Hour, reasons[i])
		outcomes[i].Lease = got[i].Lease()
	}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, len(reasons))
	for i := range got {
		require.Equal(t, reasons[i], *db.Outbox(t, got[i].ID).LastError, "row %d", i)
	}
	again, err := o.FinishAgain(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, again, len(reasons), "the confirming read finds every written reason")
}
