package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The lane rules of the outbox: a lane is a key and a destination, a
// keyed row is claimed only as the head of its lane and only once it is
// routed, and routing is idempotent.

// laneOf is the destination the lane tests route a topic to: the topic's
// first segment.
func laneOf(topic string) string { return strings.SplitN(topic, ".", 2)[0] }

// route gives every unrouted keyed row of o its destination by topic
// (laneOf), as the deliver side does before a claim, and returns the ids
// it routed.
func route(ctx context.Context, o queuebox.OutboxStore) (map[string]bool, error) {
	rows, err := o.Unrouted(ctx, 1000)
	if err != nil {
		return nil, err
	}
	as := make([]queuebox.Assignment, len(rows))
	for i, r := range rows {
		as[i] = queuebox.Assignment{ID: r.ID, Destinations: []string{laneOf(r.Topic)}}
	}
	return o.Assign(ctx, as)
}

// A keyed row is in no lane until it is routed: the claim takes no
// unrouted row, and a routed row waits behind an earlier unrouted row of
// its key (whose destination may turn out to be its own). Once routed,
// the lanes of one key run apart: a lane's head that waits for a retry
// holds back its own lane only.
func outboxLanesOfOneKeyRunApart(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	k := key("cust-42")
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "analytics.paid", Key: k, Payload: `{"n":1}`, Unrouted: true},
		OutboxRow{Topic: "audit.paid", Key: k, Payload: `{"n":2}`, Destination: "audit"},
		OutboxRow{Topic: "analytics.shipped", Key: k, Payload: `{"n":3}`, Destination: "analytics"},
		OutboxRow{Topic: "audit.shipped", Key: k, Payload: `{"n":4}`, Destination: "audit"})
	o := outboxStore(t, db, clock)

	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, got, "an unrouted row holds back the later rows of its key")
	routed, err := route(ctx, o)
	require.NoError(t, err)
	require.Equal(t, idSet(ids[0]), routed)
	require.Equal(t, "analytics", db.Outbox(t, ids[0]).Destination)

	got, err = o.Claim(ctx, 10)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{ids[0], ids[1]}, claimedIDs(got), "the head of each lane of the key")
	for _, m := range got {
		require.Equal(t, laneOf(m.Topic), m.Destination, "a claimed row names its lane's destination")
	}
	byID := map[string]queuebox.ClaimedMessage{got[0].ID: got[0], got[1].ID: got[1]}
	retry := queuebox.Retry(time.Hour, "HTTP 503")
	retry.Lease = byID[ids[0]].Lease()
	kept, err := o.Finish(ctx, []queuebox.Outcome{retry, sent(byID[ids[1]].Lease())})
	require.NoError(t, err)
	require.Len(t, kept, 2)

	got, err = o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, []string{ids[3]}, claimedIDs(got), "the audit lane goes on while the analytics head waits")
	_, err = o.Finish(ctx, []queuebox.Outcome{sent(got[0].Lease())})
	require.NoError(t, err)
	got, err = o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, got, "the analytics lane waits for its head")

	clock.Advance(time.Hour)
	got, err = o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, []string{ids[0]}, claimedIDs(got), "the retried head first, then its lane's next row")
}

func claimedIDs(ms []queuebox.ClaimedMessage) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// An assignment routes a row once: the row takes the first destination,
// a delivery with the row's key, sequence, payload and headers and the
// row's id as origin_id is added for each other one, and a second
// assignment of the same row (another replica, a repeat) changes nothing
// and adds nothing. A claimed row is routed only under its own live
// claim; a reason marks a pending row dead.
func outboxAssignFansOutOnce(t *testing.T, db Database) {
	ctx := context.Background()
	clock := NewClock()
	ids := db.InsertOutbox(t,
		OutboxRow{Topic: "payment.paid", Key: key("k"), Payload: `{"p":1}`, MaxAttempts: 7, Unrouted: true},
		OutboxRow{Topic: "nowhere", Key: key("k2"), Unrouted: true},
		OutboxRow{Topic: "payment.unkeyed", Payload: `{"p":2}`})
	o := outboxStore(t, db, clock)
	fan := queuebox.Assignment{ID: ids[0], Destinations: []string{"ledger", "billing", "archive"}}
	dead := queuebox.Assignment{ID: ids[1], DeadReason: "No route matches topic nowhere"}

	var wg sync.WaitGroup
	answers := make([]map[string]bool, 4)
	for i := range answers {
		wg.Go(func() {
			var err error
			answers[i], err = o.Assign(ctx, []queuebox.Assignment{fan, dead})
			if err != nil {
				t.Errorf("assign: %v", err)
			}
		})
	}
	wg.Wait()
	total := map[string]int{}
	for _, a := range answers {
		for id := range a {
			total[id]++
		}
	}
	require.Equal(t, map[string]int{ids[0]: 1, ids[1]: 1}, total, "each row routed by one assignment only")

	origin := db.Outbox(t, ids[0])
	require.Equal(t, "ledger", origin.Destination)
	require.Empty(t, origin.OriginID)
	var copies []OutboxState
	for _, r := range db.OutboxRows(t) {
		if r.OriginID != "" {
			copies = append(copies, r)
		}
	}
	require.Len(t, copies, 2, "one delivery for each other destination, once")
	lanes := []string{}
	for _, c := range copies {
		lanes = append(lanes, c.Destination)
		require.Equal(t, ids[0], c.OriginID)
		require.Equal(t, origin.Sequence, c.Sequence, "a delivery keeps its origin's place in its lane")
		require.Equal(t, origin.Key, c.Key)
		require.JSONEq(t, origin.Payload, c.Payload)
		require.Equal(t, queuebox.StatePending, c.State)
		require.Equal(t, 0, c.Attempt)
		require.Equal(t, 7, c.MaxAttempts)
	}
	require.ElementsMatch(t, []string{"billing", "archive"}, lanes)
	gone := db.Outbox(t, ids[1])
	require.Equal(t, queuebox.StateDead, gone.State)
	require.Equal(t, "No route matches topic nowhere", *gone.LastError)

	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 4, "the three deliveries of the keyed row and the unkeyed row")
	var unkeyed queuebox.ClaimedMessage
	for _, m := range got {
		if m.ID == ids[0] {
			require.Empty(t, m.OriginID)
		} else if m.Key != "" {
			require.Equal(t, ids[0], m.OriginID, "a delivery carries its origin")
			require.Equal(t, ids[0], m.MessageID(), "and the receiver gets the origin's id")
		}
		if m.ID == ids[2] {
			unkeyed = m
		}
	}
	require.Empty(t, unkeyed.Destination, "a row without a key is routed at its claim")
	stale := queuebox.Assignment{ID: ids[2], Token: "00000000-0000-0000-0000-000000000000", Destinations: []string{"a", "b"}}
	routed, err := o.Assign(ctx, []queuebox.Assignment{stale})
	require.NoError(t, err)
	require.Empty(t, routed, "a token that is not the row's claim routes nothing")
	own := queuebox.Assignment{ID: ids[2], Token: unkeyed.ClaimToken, Destinations: []string{"a", "b"}}
	routed, err = o.Assign(ctx, []queuebox.Assignment{own})
	require.NoError(t, err)
	require.Equal(t, idSet(ids[2]), routed)
	require.Equal(t, "a", db.Outbox(t, ids[2]).Destination)
	require.Equal(t, queuebox.StateProcessing, db.Outbox(t, ids[2]).State, "routing leaves the claim as it is")
	outcome := sent(unkeyed.Lease())
	outcome.Destination = "elsewhere"
	_, err = o.Finish(ctx, []queuebox.Outcome{outcome})
	require.NoError(t, err)
	require.Equal(t, "a", db.Outbox(t, ids[2]).Destination, "a row keeps the destination it was given")
}

// The destination of a row routed at its claim is recorded with its
// outcome.
func outboxFinishRecordsTheDestination(t *testing.T, db Database) {
	ctx := context.Background()
	db.InsertOutbox(t, keyRows(nil, 1)...)
	o := outboxStore(t, db, NewClock())
	got, err := o.Claim(ctx, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	outcome := queuebox.Retry(time.Hour, "HTTP 500")
	outcome.Lease, outcome.Destination = got[0].Lease(), "api"
	_, err = o.Finish(ctx, []queuebox.Outcome{outcome})
	require.NoError(t, err)
	require.Equal(t, "api", db.Outbox(t, got[0].ID).Destination)
}

// Claimers on several replicas claim and route at once while one
// destination fails every row (a retry far in the future): every row of
// the healthy lanes is sent, claimed once and in sequence order within
// its lane; no lane ever has two rows in flight; each failing lane gives
// up only its head, claimed once, and keeps its other rows pending.
func outboxConcurrentLanesBesideAFailingOne(t *testing.T, db Database) {
	const keys, perKey = 6, 24
	destinations := []string{"up", "down", "side"}
	var rows []OutboxRow
	for k := range keys {
		for n := range perKey {
			topic := fmt.Sprintf("%s.k%d.%d", destinations[(n+k)%len(destinations)], k, n)
			rows = append(rows, OutboxRow{Topic: topic, Key: key(fmt.Sprintf("key-%d", k)), Unrouted: true,
				Payload: fmt.Sprintf(`{"n":%d}`, n)})
		}
	}
	ids := db.InsertOutbox(t, rows...)
	laneByID := map[string]string{}
	healthy := 0
	for i, r := range rows {
		laneByID[ids[i]] = *r.Key + "/" + laneOf(r.Topic)
		if laneOf(r.Topic) != "down" {
			healthy++
		}
	}
	clock := NewClock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		mu      sync.Mutex
		claimed = map[string]int{}
		order   = map[string][]string{}
		sentN   atomic.Int64
		wg      sync.WaitGroup
	)
	run := func(o queuebox.OutboxStore) {
		for sentN.Load() < int64(healthy) && ctx.Err() == nil {
			if _, err := route(ctx, o); err != nil {
				t.Errorf("route: %v", err)
				return
			}
			batch, err := o.Claim(ctx, 5)
			if err != nil {
				t.Errorf("claim: %v", err)
				return
			}
			mu.Lock()
			for _, m := range batch {
				claimed[m.ID]++
				order[laneByID[m.ID]] = append(order[laneByID[m.ID]], m.ID)
			}
			mu.Unlock()
			checkLaneAlone(ctx, t, db, batch, laneByID)
			outcomes := make([]queuebox.Outcome, len(batch))
			for i, m := range batch {
				outcomes[i] = sent(m.Lease())
				if m.Destination == "down" {
					outcomes[i] = queuebox.Retry(time.Hour, "HTTP 503")
					outcomes[i].Lease = m.Lease()
				} else {
					sentN.Add(1)
				}
			}
			if _, err := o.Finish(ctx, outcomes); err != nil {
				t.Errorf("finish: %v", err)
				return
			}
		}
	}
	for range 3 {
		stores := db.Stores(t, clock.Now)
		for range 2 {
			o, err := stores.Outbox(time.Minute)
			require.NoError(t, err)
			wg.Go(func() { run(o) })
		}
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "the claimers did not send every healthy row in time")
	for id, n := range claimed {
		require.Equal(t, 1, n, "row %s claimed once", id)
	}
	for i, r := range rows {
		lane := laneByID[ids[i]]
		if laneOf(r.Topic) == "down" {
			continue
		}
		require.Equal(t, queuebox.StateSent, db.Outbox(t, ids[i]).State, "row %d of lane %s", i, lane)
	}
	want := map[string][]string{}
	for i, r := range rows {
		lane := laneByID[ids[i]]
		if laneOf(r.Topic) == "down" {
			if len(want[lane]) == 0 {
				want[lane] = []string{ids[i]}
			}
			continue
		}
		want[lane] = append(want[lane], ids[i])
	}
	require.Equal(t, want, order, "each healthy lane in sequence order; each failing lane its head only")
}

// checkLaneAlone reports a row of batch whose lane has another processing
// row: the claimer holds each row of batch until it ends it, so any other
// processing row of its lane seen meanwhile is a second row in flight.
func checkLaneAlone(ctx context.Context, t *testing.T, db Database, batch []queuebox.ClaimedMessage, laneByID map[string]string) {
	for _, m := range batch {
		busy, err := db.InFlight(ctx, OutboxTable, m.Key)
		if err != nil {
			t.Errorf("read the rows in flight: %v", err)
			continue
		}
		for _, id := range busy {
			if id != m.ID && laneByID[id] == laneByID[m.ID] {
				t.Errorf("lane %s: rows %s and %s in flight at once", laneByID[m.ID], id, m.ID)
			}
		}
	}
}
