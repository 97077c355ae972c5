package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
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

func leasesOf(claimed []queuebox.ClaimedMessage) []queuebox.Lease {
	out := make([]queuebox.Lease, len(claimed))
	for i, m := range claimed {
		out[i] = m.Lease()
	}
	return out
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

// Claimers on several replicas, two per replica, claim and finish rows at
// once: no row is claimed twice, no key has two rows in flight, and each
// key's rows are claimed in sequence order.
func outboxConcurrentClaimers(t *testing.T, db Database) {
	const keys, perKey, unkeyed = 12, 25, 60
	for k := range keys {
		db.InsertOutbox(t, keyRows(key(fmt.Sprintf("key-%02d", k)), perKey)...)
	}
	db.InsertOutbox(t, keyRows(nil, unkeyed)...)
	total := int64(keys*perKey + unkeyed)
	clock := NewClock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var (
		mu       sync.Mutex
		claimed  = map[string]int{} // id -> times claimed
		order    = map[string][]int64{}
		finished atomic.Int64
		wg       sync.WaitGroup
	)
	claimer := func(o queuebox.OutboxStore) {
		defer wg.Done()
		for finished.Load() < total && ctx.Err() == nil {
			batch, err := o.Claim(ctx, 7)
			if err != nil {
				t.Errorf("claim: %v", err)
				return
			}
			if len(batch) == 0 {
				continue
			}
			outcomes := make([]queuebox.Outcome, 0, len(batch))
			mu.Lock()
			for _, m := range batch {
				claimed[m.ID]++
				if m.Key != "" {
					order[m.Key] = append(order[m.Key], m.Sequence)
				}
				outcomes = append(outcomes, sent(m.Lease()))
			}
			mu.Unlock()
			// This claimer holds each row until it finishes it, so any
			// other processing row of its key, seen at any moment in
			// between, is a second row of the key in flight.
			for _, m := range batch {
				if m.Key == "" {
					continue
				}
				busy, err := db.InFlight(ctx, OutboxTable, m.Key)
				if err != nil {
					t.Errorf("read the rows in flight: %v", err)
				} else if !slices.Equal(busy, []string{m.ID}) {
					t.Errorf("key %s: processing rows %v while this claimer holds %s", m.Key, busy, m.ID)
				}
			}
			kept, err := o.Finish(ctx, outcomes)
			if err != nil {
				t.Errorf("finish: %v", err)
				return
			}
			if len(kept) != len(outcomes) {
				t.Errorf("lost %d claims without a competing owner", len(outcomes)-len(kept))
			}
			finished.Add(int64(len(kept)))
		}
	}
	for range 3 {
		stores := db.Stores(t, clock.Now)
		for range 2 {
			o, err := stores.Outbox(lease)
			require.NoError(t, err)
			wg.Add(1)
			go claimer(o)
		}
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "the claimers did not finish every row in time")
	require.Len(t, claimed, int(total), "every row claimed")
	for id, n := range claimed {
		require.Equal(t, 1, n, "row %s claimed once", id)
	}
	for k, seqs := range order {
		require.Len(t, seqs, perKey)
		require.IsIncreasing(t, seqs, "key %s in sequence order", k)
	}
	for _, row := range db.OutboxRows(t) {
		require.Equal(t, queuebox.StateSent, row.State, "row %s", row.ID)
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

// Once the lease expired and the reclaim step returned the row, a new
// claim takes it under a new token, and every write of the old token
// (renewal, outcome, outcome again) changes nothing.
func outboxStaleTokenWritesNothing(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	o, first := claimOnlyRow(t, db, clock)
	clock.Advance(lease + time.Second)
	n, err := o.Reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	second, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, second, 1)
	require.Equal(t, first[0].ID, second[0].ID)
	require.NotEqual(t, first[0].ClaimToken, second[0].ClaimToken, "a new claim issues a new token")

	renewed, err := o.Renew(ctx, []queuebox.Lease{first[0].Lease(), second[0].Lease()})
	require.NoError(t, err)
	require.Equal(t, idSet(second[0].ID), renewed, "the old token renews nothing")
	dead := queuebox.Dead("stale")
	dead.Lease = first[0].Lease()
	kept, err := o.Finish(ctx, []queuebox.Outcome{dead})
	require.NoError(t, err)
	require.Empty(t, kept, "the stale owner's outcome changes nothing")
	kept, err = o.FinishAgain(ctx, []queuebox.Outcome{dead})
	require.NoError(t, err)
	require.Empty(t, kept, "nor does its second try")
	row := db.Outbox(t, first[0].ID)
	require.Equal(t, queuebox.StateProcessing, row.State)
	require.Equal(t, second[0].ClaimToken, row.ClaimToken, "the new owner keeps the row")
	require.Nil(t, row.LastError)

	kept, err = o.Finish(ctx, []queuebox.Outcome{sent(second[0].Lease())})
	require.NoError(t, err)
	require.Equal(t, idSet(second[0].ID), kept)
	require.Equal(t, queuebox.StateSent, db.Outbox(t, first[0].ID).State)
}

// A lease that expired fences its own token out, before any reclaim: the
// renewal and the outcome write change nothing, and the reclaim step then
// returns the rows.
func outboxExpiredLeaseWritesNothing(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(nil, 2)...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 2)
	clock.Advance(lease)

	renewed, err := o.Renew(ctx, leasesOf(got))
	require.NoError(t, err)
	require.Empty(t, renewed, "a lease that ends now is no longer live")
	outcomes := []queuebox.Outcome{sent(got[0].Lease()), sent(got[1].Lease())}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Empty(t, kept)
	kept, err = o.FinishAgain(ctx, outcomes)
	require.NoError(t, err)
	require.Empty(t, kept, "an expired lease is lost, not written")
	for _, m := range got {
		row := db.Outbox(t, m.ID)
		require.Equal(t, queuebox.StateProcessing, row.State)
		require.Equal(t, m.ClaimToken, row.ClaimToken)
	}
	clock.Advance(time.Millisecond) // the reclaim step takes a lease that ended before now
	n, err := o.Reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
}

// The reclaim step returns the rows whose lease expired and only those: a
// younger claim, and a claim whose renewal moved its lease, stay.
func outboxReclaimTakesOnlyExpiredLeases(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	db.InsertOutbox(t, keyRows(nil, 4)...)
	o := outboxStore(t, db, clock)
	older, err := o.Claim(ctx, 2)
	require.NoError(t, err)
	require.Len(t, older, 2)
	clock.Advance(30 * time.Second)
	younger, err := o.Claim(ctx, 2)
	require.NoError(t, err)
	require.Len(t, younger, 2)
	clock.Advance(40 * time.Second)

	n, err := o.Reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "the older claims expired, the younger did not")
	for _, m := range older {
		row := db.Outbox(t, m.ID)
		require.Equal(t, queuebox.StatePending, row.State)
		require.Nil(t, row.LeaseExpiresAt)
	}
	for _, m := range younger {
		require.Equal(t, queuebox.StateProcessing, db.Outbox(t, m.ID).State)
	}

	renewed, err := o.Renew(ctx, leasesOf(younger))
	require.NoError(t, err)
	require.Equal(t, idSet(leaseIDs(leasesOf(younger))...), renewed)
	clock.Advance(40 * time.Second) // 80 s after the claim, 40 s after the renewal
	n, err = o.Reclaim(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a renewed lease is live")
	outcomes := []queuebox.Outcome{sent(younger[0].Lease()), sent(younger[1].Lease())}
	kept, err := o.Finish(ctx, outcomes)
	require.NoError(t, err)
	require.Len(t, kept, 2)

	again, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.ElementsMatch(t, leaseIDs(leasesOf(older)), leaseIDs(leasesOf(again)), "reclaimed rows are claimable again")
}

// The reclaim step skips an expired row that another statement holds (an
// outcome write or renewal of the old owner that is committing) instead
// of waiting for it; the next step takes it.
func outboxReclaimSkipsAHeldRow(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	ids := db.InsertOutbox(t, keyRows(nil, 2)...)
	o := outboxStore(t, db, clock)
	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 2)
	clock.Advance(lease + time.Second)

	held := db.Hold(t, OutboxTable, ids[0])
	// A step that waited for the held row would run into this bound.
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := o.Reclaim(bounded)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the free row only")
	held.Release(t)
	n, err = o.Reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the row once it is free")
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

// A replica renews every lease it holds while its writer finishes some of
// the same rows, on two connections, each statement listing the rows in
// its own order. The statements must lock the rows in one order: a
// deadlock fails one of them, and a failed renewal with a short lease can
// lose every claim of the replica.
//
// A transaction holds the middle row, so the renewal (ids ascending) and
// the finish (ids descending) each lock their first half and then wait:
// taken in list order, each half blocks the other once the middle row is
// free.
func outboxRenewAndFinishDoNotDeadlock(t *testing.T, db Database) {
	ctx := context.Background()
	db.InsertOutbox(t, keyRows(nil, 20)...)
	o := outboxStore(t, db, NewClock())
	claimed, err := o.Claim(ctx, 100)
	require.NoError(t, err)
	require.Len(t, claimed, 20)
	leases := sortedLeases(db, leasesOf(claimed))
	descending := make([]queuebox.Outcome, 0, len(leases))
	for i := len(leases) - 1; i >= 0; i-- {
		descending = append(descending, sent(leases[i]))
	}
	renewErr, finishErr := behindAHeldRow(t, db, OutboxTable, leases[10].ID,
		func() error { _, err := o.Renew(ctx, leases); return err },
		func() error { _, err := o.Finish(ctx, descending); return err })
	require.NoError(t, renewErr, "renewal")
	require.NoError(t, finishErr, "finish")
	for _, row := range db.OutboxRows(t) {
		require.Equal(t, queuebox.StateSent, row.State)
	}
}

// sortedLeases orders leases by id as the database does.
func sortedLeases(db Database, leases []queuebox.Lease) []queuebox.Lease {
	out := slices.Clone(leases)
	slices.SortFunc(out, func(a, b queuebox.Lease) int { return db.CompareIDs(a.ID, b.ID) })
	return out
}

// behindAHeldRow runs first and then second while another transaction
// holds the row id of table, each started once the one before waits on
// that row, then lets the row go and returns both results. Two statements
// that lock the same rows in different orders deadlock here.
func behindAHeldRow(t *testing.T, db Database, table Table, id string, first, second func() error) (error, error) {
	t.Helper()
	held := db.Hold(t, table, id)
	firstErr, secondErr := make(chan error, 1), make(chan error, 1)
	go func() { firstErr <- first() }()
	held.WaitBlocked(t, 1)
	go func() { secondErr <- second() }()
	held.WaitBlocked(t, 2)
	held.Release(t)
	return <-firstErr, <-secondErr
}
