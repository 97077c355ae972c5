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

// The claim, lease and fence invariants that the outbox poller and the
// relay share, each written once and run for both tables.

// Claimers on several replicas, two per replica, claim and end rows at
// once: no row is claimed twice, no unit of order (key, aggregate) has
// two rows in flight, each unit's rows are claimed in order (sequence,
// receipt), and every row ends once (and, forwarded, reaches the outbox
// once).
func concurrentClaimers(t *testing.T, db Database, s side) {
	const units, perUnit, free = 12, 25, 60
	names := make([]string, units)
	for u := range names {
		names[u] = fmt.Sprintf("unit-%02d", u)
	}
	want := s.units(t, db, names, perUnit)
	s.free(t, db, free)
	total := int64(units*perUnit + free)
	clock := NewClock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var (
		mu       sync.Mutex
		claimed  = map[string]int{} // id -> times claimed
		order    = map[string][]string{}
		finished atomic.Int64
		wg       sync.WaitGroup
	)
	run := func(c claimer) {
		end := c.endings[0]
		for finished.Load() < total && ctx.Err() == nil {
			batch, err := c.claim(ctx, 7)
			if err != nil {
				t.Errorf("claim: %v", err)
				return
			}
			mu.Lock()
			for _, m := range batch {
				claimed[m.ID]++
				if m.unit != "" {
					order[m.unit] = append(order[m.unit], m.ID)
				}
			}
			mu.Unlock()
			checkAlone(ctx, t, db, s.table, batch)
			kept, err := end.write(ctx, leasesOfRows(batch))
			if err != nil {
				t.Errorf("%s: %v", end.name, err)
				return
			}
			if len(kept) != len(batch) {
				t.Errorf("lost %d claims without a competing owner", len(batch)-len(kept))
			}
			finished.Add(int64(len(kept)))
		}
	}
	var claimers []claimer
	for range 3 {
		stores := db.Stores(t, clock.Now)
		claimers = append(claimers, s.claimer(t, stores), s.claimer(t, stores))
	}
	for _, c := range claimers {
		wg.Go(func() { run(c) })
	}
	wg.Wait()
	end := claimers[0].endings[0]
	require.NoError(t, ctx.Err(), "the claimers did not end every row in time")
	require.Len(t, claimed, int(total), "every row claimed")
	for id, n := range claimed {
		require.Equal(t, 1, n, "row %s claimed once", id)
		require.Equal(t, end.state, s.row(t, db, id).State, "row %s", id)
	}
	require.Equal(t, want, order, "each unit of order in order")
	if end.forwards {
		outbox := outboxByInboxID(t, db)
		require.Len(t, outbox, int(total))
		for id, rows := range outbox {
			require.Len(t, rows, 1, "inbox row %s reaches the outbox once", id)
		}
	}
}

// checkAlone reports a row of batch whose unit of order has another
// processing row. The claimer holds each row of batch until it ends it,
// so any other processing row of its unit, seen at any moment in
// between, is a second row of the unit in flight.
func checkAlone(ctx context.Context, t *testing.T, db Database, table Table, batch []claimedRow) {
	for _, m := range batch {
		if m.unit == "" {
			continue
		}
		busy, err := db.InFlight(ctx, table, m.unit)
		if err != nil {
			t.Errorf("read the rows in flight: %v", err)
		} else if !slices.Equal(busy, []string{m.ID}) {
			t.Errorf("unit %s: processing rows %v while this claimer holds %s", m.unit, busy, m.ID)
		}
	}
}

// A lease fences its own token out once it expired, before any reclaim:
// the renewal and every write that ends a claim change nothing. Once the
// reclaim step returned the rows and a new claim took them under new
// tokens, the old tokens still write nothing, and the new ones write.
func staleOrExpiredLeaseWritesNothing(t *testing.T, db Database, s side) {
	ctx := context.Background()
	clock := NewClock()
	s.free(t, db, 2)
	c := s.on(t, db, clock)
	old := leasesOfRows(c.claimAll(t, 10, 2))
	outboxRows := len(db.OutboxRows(t))
	writesNothing := func(owners []queuebox.Lease, why string) {
		t.Helper()
		renewed, err := c.renew(ctx, old)
		require.NoError(t, err)
		require.Empty(t, renewed, "renew: %s", why)
		for _, end := range c.endings {
			kept, err := end.write(ctx, old)
			require.NoError(t, err)
			require.Empty(t, kept, "%s: %s", end.name, why)
		}
		require.Len(t, db.OutboxRows(t), outboxRows, "no outbox row: %s", why)
		for _, l := range owners {
			row := s.row(t, db, l.ID)
			require.Equal(t, queuebox.StateProcessing, row.State, why)
			require.Equal(t, l.Token, row.ClaimToken, "the owner keeps the row: %s", why)
			require.Nil(t, row.LastError, why)
		}
	}
	clock.Advance(lease)
	writesNothing(old, "a lease that ends now is no longer live")

	clock.Advance(time.Millisecond) // the reclaim step takes a lease that ended before now
	n, err := c.reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	again := sortedLeases(db, leasesOfRows(c.claimAll(t, 10, 2)))
	old = sortedLeases(db, old)
	require.Equal(t, leaseIDs(old), leaseIDs(again), "the same rows")
	for i := range old {
		require.NotEqual(t, old[i].Token, again[i].Token, "a new claim issues a new token")
	}
	renewed, err := c.renew(ctx, append(slices.Clone(old), again...))
	require.NoError(t, err)
	require.Equal(t, idSet(leaseIDs(again)...), renewed, "the old tokens renew nothing")
	writesNothing(again, "another claim took the rows")

	end := c.endings[0]
	kept, err := end.write(ctx, again)
	require.NoError(t, err)
	require.Equal(t, idSet(leaseIDs(again)...), kept)
	for _, l := range again {
		require.Equal(t, end.state, s.row(t, db, l.ID).State)
	}
	if end.forwards {
		require.Len(t, db.OutboxRows(t), outboxRows+2, "one outbox row each")
	}
}

// The reclaim step returns the rows whose lease expired and only those:
// a younger claim, and a claim whose renewal moved its lease, stay. A
// returned row is pending with no lease (in the inbox, with one more
// attempt) and claimable again.
func reclaimTakesOnlyExpiredLeases(t *testing.T, db Database, s side) {
	ctx := context.Background()
	clock := NewClock()
	s.free(t, db, 4)
	c := s.on(t, db, clock)
	older := c.claimAll(t, 2, 2)
	clock.Advance(30 * time.Second)
	younger := leasesOfRows(c.claimAll(t, 2, 2))
	clock.Advance(40 * time.Second)

	n, err := c.reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "the older claims expired, the younger did not")
	for _, m := range older {
		row := s.row(t, db, m.ID)
		require.Equal(t, queuebox.StatePending, row.State)
		require.Nil(t, row.LeaseExpiresAt)
		require.Equal(t, s.reclaimCounts, row.Attempt, "the attempts the reclaim step counts")
	}
	stillProcessing := func(why string) {
		t.Helper()
		for _, l := range younger {
			require.Equal(t, queuebox.StateProcessing, s.row(t, db, l.ID).State, why)
		}
	}
	stillProcessing("a younger claim")

	renewed, err := c.renew(ctx, younger)
	require.NoError(t, err)
	require.Equal(t, idSet(leaseIDs(younger)...), renewed)
	clock.Advance(40 * time.Second) // 80 s after the claim, 40 s after the renewal
	n, err = c.reclaim(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a renewed lease is live")
	stillProcessing("a renewed claim")
	kept, err := c.endings[0].write(ctx, younger)
	require.NoError(t, err)
	require.Len(t, kept, 2)

	again := c.claimAll(t, 10, 2)
	require.ElementsMatch(t, leaseIDs(leasesOfRows(older)), leaseIDs(leasesOfRows(again)), "reclaimed rows are claimable again")
}

// The reclaim step skips an expired row that another statement holds (a
// write or renewal of the old owner that is committing) instead of
// waiting for it; the next step takes it.
func reclaimSkipsAHeldRow(t *testing.T, db Database, s side) {
	ctx := context.Background()
	clock := NewClock()
	ids := s.free(t, db, 2)
	c := s.on(t, db, clock)
	c.claimAll(t, 10, 2)
	clock.Advance(lease + time.Second)

	held := db.Hold(t, s.table, ids[0])
	// A step that waited for the held row would run into this bound.
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := c.reclaim(bounded)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the free row only")
	held.Release(t)
	n, err = c.reclaim(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the row once it is free")
	for _, id := range ids {
		require.Equal(t, queuebox.StatePending, s.row(t, db, id).State, "row %s", id)
	}
}

// A replica renews every lease it holds while its writer ends some of
// the same rows, on two connections, each statement listing the rows in
// its own order. The statements must lock the rows in one order: a
// deadlock fails one of them, and a failed renewal with a short lease can
// lose every claim of the replica.
//
// A transaction holds the middle row, so the renewal (ids ascending) and
// the write (ids descending) each lock their first half and then wait:
// taken in list order, each half blocks the other once the middle row is
// free. It runs for every write that ends a claim.
func renewAndEndingsDoNotDeadlock(t *testing.T, db Database, s side) {
	ctx := context.Background()
	c := s.on(t, db, NewClock())
	for _, end := range c.endings {
		s.free(t, db, 20)
		leases := sortedLeases(db, leasesOfRows(c.claimAll(t, 100, 20)))
		descending := slices.Clone(leases)
		slices.Reverse(descending)
		renewErr, writeErr := behindAHeldRow(t, db, s.table, leases[10].ID,
			func() error { _, err := c.renew(ctx, leases); return err },
			func() error { _, err := end.write(ctx, descending); return err })
		require.NoError(t, renewErr, "renewal beside the %s", end.name)
		require.NoError(t, writeErr, end.name)
		for _, l := range leases {
			require.Equal(t, end.state, s.row(t, db, l.ID).State, end.name)
		}
	}
}
