package integration

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// checkChaosReceiver: every row reached the receiver with a 2xx, the first
// 2xx of the rows of a key came in sequence order, and two rows of one key
// were never in flight at once, unless the older request came from a
// replica killed before the newer one started, or outlived its lease.
func checkChaosReceiver(t *testing.T, db database, rc *chaosReceiver, fleet *chaosFleet) {
	t.Helper()
	deliveries, successes, firstOK, overlaps, failures := rc.snapshot()
	ids := allIDs(t, db)
	total := 0
	for _, id := range ids {
		require.GreaterOrEqual(t, successes[id], 1, "row %s reached the receiver", id)
		total += deliveries[id]
	}
	for key, want := range keyOrder(t, db) {
		require.Equal(t, want, firstOK[key], "first deliveries of %s in sequence order", key)
	}
	allowed := 0
	for _, o := range overlaps {
		killedAt, killed := fleet.killed[o.older.replica]
		afterKill := killed && killedAt.Before(o.new.start)
		outlived := o.new.start.Sub(o.older.start) > chaosLease
		t.Logf("rows %s (%s) and %s (%s) of %s in flight at once; older request killed: %v, outlived its lease: %v",
			o.older.id, o.older.replica, o.new.id, o.new.replica, o.key, afterKill, outlived)
		require.True(t, afterKill || outlived, "two rows of %s in flight at once from live replicas", o.key)
		allowed++
	}
	t.Logf("receiver: %d rows, %d requests, %d answered 500, %d rows delivered with a 2xx more than once, %d allowed overlaps",
		len(ids), total, failures, countAbove(successes, 1), allowed)
}

// checkChaosAudit reads the audit table: one processing row per key at any
// moment, every outcome written by the owner of the claim, reclaims only
// of the claims of killed replicas, a second 2xx of a row only after a
// reclaim of it, and counters and logs that agree with the table.
func checkChaosAudit(t *testing.T, db database, rc *chaosReceiver, fleet *chaosFleet) {
	t.Helper()
	s := summarize(t, readAudit(t, db))
	require.Empty(t, s.keyOverlaps, "two rows of one key processing at once")
	reclaimsBy, reclaimsOf := map[string]int{}, map[string]int{}
	lostOwners := map[string]int{}
	for _, sp := range s.spans {
		if sp.end != "reclaim" {
			require.Equal(t, sp.owner, sp.endActor, "the outcome of %s written by the owner of its claim", sp.id)
			continue
		}
		_, killed := fleet.killed[sp.owner]
		require.True(t, killed, "row %s of %s reclaimed by %s, but %s was never killed", sp.id, sp.owner, sp.endActor, sp.owner)
		reclaimsBy[sp.endActor]++
		reclaimsOf[sp.id]++
		lostOwners[sp.owner]++
	}
	_, successes, _, _, _ := rc.snapshot()
	var pendingAtKill []time.Duration
	for id, n := range successes {
		require.LessOrEqual(t, n-1, reclaimsOf[id], "row %s delivered again without a reclaim", id)
		if n > 1 {
			ok := rc.firstSuccess(id)
			pendingAtKill = append(pendingAtKill, fleet.killed[ok.replica].Sub(ok.start).Round(time.Millisecond))
		}
	}
	slices.Sort(pendingAtKill)
	t.Logf("rows answered 2xx and reclaimed: time from the 2xx to the kill of the sender: %v", pendingAtKill)
	require.NotEmpty(t, reclaimsOf, "the kills left claims behind for the reclaim")
	t.Logf("audit: %d claims, %d reclaimed rows; reclaims per replica %v; claims left by killed replicas %v",
		len(s.spans), len(reclaimsOf), reclaimsBy, lostOwners)
	checkChaosCounters(t, fleet, s.spans, reclaimsBy)
}

// checkChaosCounters: no replica logged a lost claim; a replica that is
// alive or stopped cleanly logged (and, alive, counted) exactly the
// reclaims the table shows for it. A killed replica may have died between
// a reclaim and its log line.
func checkChaosCounters(t *testing.T, fleet *chaosFleet, spans []claimSpan, reclaimsBy map[string]int) {
	t.Helper()
	for name, p := range fleet.all {
		for _, line := range lostLines(p) {
			t.Errorf("%s reported a lost claim: %s; that replica's claims of the row ended as %v",
				name, line, claimEnds(spans, name, lostMessageID.FindStringSubmatch(line)))
		}
		logged := logReclaims(t, p)
		if _, killed := fleet.killed[name]; killed {
			require.LessOrEqual(t, logged, reclaimsBy[name], "%s logged reclaims", name)
			continue
		}
		require.Equal(t, reclaimsBy[name], logged, "%s logged reclaims", name)
	}
	for name, p := range fleet.live {
		_, scrape := get(t, p.url("/metrics"))
		require.Equal(t, float64(reclaimsBy[name]), sample(t, scrape, "queuebox_outbox_messages_reclaimed_total"), "%s reclaimed counter", name)
		require.Equal(t, 0.0, sample(t, scrape, `queuebox_claims_lost_total{component="outbox"}`), "%s claims lost", name)
	}
}

var lostMessageID = regexp.MustCompile(`message_id"?[=:]"?([0-9a-f-]{36})`)

// claimEnds lists how the claims of replica on the row named by match
// ended, and who wrote the end.
func claimEnds(spans []claimSpan, replica string, match []string) []string {
	var out []string
	for _, sp := range spans {
		if len(match) == 2 && sp.id == match[1] && sp.owner == replica {
			out = append(out, sp.end+" by "+sp.endActor)
		}
	}
	return out
}

func countAbove(m map[string]int, n int) int {
	c := 0
	for _, v := range m {
		if v > n {
			c++
		}
	}
	return c
}
