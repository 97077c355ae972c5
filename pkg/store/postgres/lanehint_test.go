package postgres_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// Under a transaction older than them, every row a lane delivered leaves
// its index entries in the lane (its routing, its claim), and a walk that
// reads each lane from its first entry steps over all of them. A walk
// given each lane's last head (the hints) starts there: its cost no
// longer follows the rows delivered since that transaction began.
func TestHintedWalkSkipsTheEntriesAnOldSnapshotKeeps(t *testing.T) {
	t.Parallel()
	db, l := boundSchema(t)
	holdSnapshot(t, db)
	const lanes, gone = 200, 20_000
	// Delivered rows, routed and claimed as deliver does: each update
	// leaves a new entry in the lane index.
	exec(t, db, `INSERT INTO outbox (topic, key, payload, destination)
		SELECT 't', 'k-' || (g % $1), '{}', 'd' FROM generate_series(1, $2) g`, lanes, gone)
	exec(t, db, `UPDATE outbox SET state = 'processing'`)
	exec(t, db, `UPDATE outbox SET state = 'sent'`)
	// Two waiting rows per lane; the hint is the sequence of the last row
	// each lane delivered.
	exec(t, db, `INSERT INTO outbox (topic, key, payload, destination)
		SELECT 't', 'k-' || (g % $1), '{}', 'd' FROM generate_series(1, $2) g`, lanes, 2*lanes)
	keys, dests, seqs := laneHints(t, db, `SELECT key, destination, max(sequence) FROM outbox
		WHERE state = 'sent' GROUP BY key, destination`)
	require.Len(t, keys, lanes)
	var count int64 // no move back to pending was counted yet

	claim, err := postgres.RenderClaim("outbox_claim", l, true)
	require.NoError(t, err)
	args := []any{boundBatch, "", 60_000, nil, "", nil}
	fullRows, full := explainBuffers(t, db, claim, append(args, nil, nil, nil, nil, nil)...)
	rowsHinted, hinted := explainBuffers(t, db, claim, append(args, keys, dests, seqs, count, nil)...)
	require.Equal(t, float64(boundBatch), fullRows, "the full walk claims a head per lane")
	require.Equal(t, float64(boundBatch), rowsHinted, "the hinted walk claims as many")
	require.Less(t, hinted*5, full, "buffers of the hinted walk (%v) against the full one (%v)", hinted, full)

	_, stale := explainBuffers(t, db, claim, append(args, keys, dests, seqs, count+1, nil)...)
	require.Greater(t, stale, hinted*5, "hints taken under another requeue count are not used")
}

// The store walks hinted lanes from their last head: a new lane between
// two hinted ones is still found, a row made pending by hand below a
// hint waits for the next full walk, and a row the workbench resends
// (which counts the move) is the head of its lane at the very next claim.
// The store's clock stands still, so every claim after the first is
// hinted unless the requeue count says otherwise.
func TestHintsGiveWayToARequeuedRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := pgtest.Migrated(t, 2)
	l := schema.New(schema.Postgres, schema.DefaultNames()).WithoutLedger()
	var clock atomic.Pointer[time.Time]
	set := func(at time.Time) { clock.Store(&at) }
	t0 := time.Now().Add(time.Minute)
	set(t0)
	o, err := postgres.NewOutbox(db, l, time.Minute, postgres.WithClock(func() time.Time { return *clock.Load() }))
	require.NoError(t, err)
	wb, err := postgres.NewWorkbench(db, l)
	require.NoError(t, err)
	conn := s.Connect(t)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, key, payload, destination)
		SELECT 't', k, jsonb_build_object('row', k || n), 'api'
		FROM unnest(ARRAY['a', 'b']) k, generate_series(1, 5) n ORDER BY k, n`)
	require.NoError(t, err)
	ids := map[string]string{}
	// claim takes the heads, ends them as told (sent unless dead), and
	// returns the rows it took.
	claim := func(dead ...string) []string {
		t.Helper()
		msgs, err := o.Claim(ctx, 10)
		require.NoError(t, err)
		var rows []string
		outcomes := make([]queuebox.Outcome, len(msgs))
		for i, m := range msgs {
			var p struct{ Row string }
			require.NoError(t, json.Unmarshal(m.Payload, &p))
			rows, ids[p.Row] = append(rows, p.Row), m.ID
			outcomes[i] = queuebox.Sent()
			if slices.Contains(dead, p.Row) {
				outcomes[i] = queuebox.Dead("test")
			}
			outcomes[i].Lease, outcomes[i].Destination = m.Lease(), m.Destination
		}
		kept, err := o.Finish(ctx, outcomes)
		require.NoError(t, err)
		require.Len(t, kept, len(msgs))
		slices.Sort(rows)
		return rows
	}
	require.Equal(t, []string{"a1", "b1"}, claim("b1"), "the first claim walks every lane")
	require.Equal(t, []string{"a2", "b2"}, claim())
	require.Equal(t, []string{"a3", "b3"}, claim())

	_, err = conn.Exec(ctx, `UPDATE outbox SET state = 'pending' WHERE id = $1`, ids["a1"])
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, key, payload, destination) VALUES ('t', 'ab', '{"row": "ab1"}', 'api')`)
	require.NoError(t, err)
	require.Equal(t, []string{"a4", "ab1", "b4"}, claim(),
		"a hinted walk finds the new lane between two hinted ones, and not a row made pending by hand below a hint")

	_, err = wb.Resend(ctx, queuebox.TableOutbox, ids["b1"], queuebox.ResendEdit{})
	require.NoError(t, err)
	require.Equal(t, []string{"a1", "b1"}, claim(),
		"after a counted resend the claim walks every lane from its start: the resent row is its lane's head again")
	require.Equal(t, []string{"a5", "b5"}, claim())
}

// The relay's walk of aggregates, hinted at each aggregate's last head
// (its created_at), skips the entries an old transaction keeps of the
// rows each aggregate relayed before.
func TestHintedRelayWalkSkipsTheEntriesAnOldSnapshotKeeps(t *testing.T) {
	t.Parallel()
	db, l := boundSchema(t)
	holdSnapshot(t, db)
	const aggs, gone = 200, 20_000
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, consumption, aggregate_id, created_at)
		SELECT 'bench', 'gone-' || g, '{}', 'push', 'agg-' || (g % $1), now() - interval '1 hour' + g * interval '1 ms'
		FROM generate_series(1, $2) g`, aggs, gone)
	exec(t, db, `UPDATE inbox SET state = 'processing'`)
	exec(t, db, `UPDATE inbox SET state = 'processed'`)
	exec(t, db, `INSERT INTO inbox (source, idempotency_key, payload, consumption, aggregate_id)
		SELECT 'bench', 'new-' || g, '{}', 'push', 'agg-' || (g % $1) FROM generate_series(1, $2) g`, aggs, 2*aggs)
	var (
		keys   []string
		places []time.Time
	)
	rows, err := db.Pool.Query(context.Background(), `SELECT aggregate_id, max(created_at) FROM inbox
		WHERE state = 'processed' GROUP BY aggregate_id`)
	require.NoError(t, err)
	for rows.Next() {
		var k string
		var at time.Time
		require.NoError(t, rows.Scan(&k, &at))
		keys, places = append(keys, k), append(places, at)
	}
	require.NoError(t, rows.Err())
	require.Len(t, keys, aggs)

	relay, err := postgres.RenderClaim("inbox_relay_claim", l, true)
	require.NoError(t, err)
	args := []any{boundBatch, 60_000, []string{"bench"}, nil, "", nil}
	fullRows, full := explainBuffers(t, db, relay, append(args, nil, nil, nil, nil)...)
	hintedRows, hinted := explainBuffers(t, db, relay, append(args, keys, places, int64(0), nil)...)
	require.Equal(t, float64(boundBatch), fullRows, "the full walk claims a head per aggregate")
	require.Equal(t, float64(boundBatch), hintedRows, "the hinted walk claims as many")
	require.Less(t, hinted*5, full, "buffers of the hinted walk (%v) against the full one (%v)", hinted, full)
	_, stale := explainBuffers(t, db, relay, append(args, keys, places, int64(1), nil)...)
	require.Greater(t, stale, hinted*5, "hints taken under another requeue count are not used")
}

// The relay's hints give way to a counted resend, as the outbox's do: the
// resent row of an aggregate is its head again at the next claim, and an
// aggregate that comes between two hinted ones is found.
func TestRelayHintsGiveWayToARequeuedRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := pgtest.Migrated(t, 2)
	l := schema.New(schema.Postgres, schema.DefaultNames())
	var clock atomic.Pointer[time.Time]
	t0 := time.Now().Add(time.Minute)
	clock.Store(&t0)
	r, err := postgres.NewRelay(db, l, queuebox.RelayParams{Lease: time.Minute, Sources: []string{"s"}},
		postgres.WithClock(func() time.Time { return *clock.Load() }))
	require.NoError(t, err)
	wb, err := postgres.NewWorkbench(db, l)
	require.NoError(t, err)
	conn := s.Connect(t)
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, consumption, aggregate_id, created_at)
		SELECT 's', a || n, '{}', 'push', a, now() - interval '1 minute' + n * interval '1 second'
		FROM unnest(ARRAY['a', 'b']) a, generate_series(1, 5) n`)
	require.NoError(t, err)
	ids := map[string]string{}
	// claim takes the heads and forwards them, or marks dead the one named.
	claim := func(dead ...string) []string {
		t.Helper()
		got, err := r.Claim(ctx, 10)
		require.NoError(t, err)
		var keys []string
		p := queuebox.ForwardParams{MaxAttempts: 5}
		var marks []queuebox.DeadMark
		for _, row := range got {
			keys, ids[row.IdempotencyKey] = append(keys, row.IdempotencyKey), row.ID
			if slices.Contains(dead, row.IdempotencyKey) {
				marks = append(marks, queuebox.DeadMark{Lease: row.Lease(), Reason: "test"})
				continue
			}
			p.Rows = append(p.Rows, queuebox.Forward{Lease: row.Lease(), Topic: "t", Headers: []byte(`{}`)})
		}
		kept, err := r.Forward(ctx, p)
		require.NoError(t, err)
		require.Len(t, kept, len(p.Rows))
		if len(marks) > 0 {
			kept, err = r.Dead(ctx, marks)
			require.NoError(t, err)
			require.Len(t, kept, len(marks))
		}
		slices.Sort(keys)
		return keys
	}
	require.Equal(t, []string{"a1", "b1"}, claim("b1"))
	require.Equal(t, []string{"a2", "b2"}, claim())
	require.Equal(t, []string{"a3", "b3"}, claim())
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, consumption, aggregate_id)
		VALUES ('s', 'ab1', '{}', 'push', 'ab')`)
	require.NoError(t, err)
	require.Equal(t, []string{"a4", "ab1", "b4"}, claim(), "the aggregate between two hinted ones is found")

	_, err = wb.Resend(ctx, queuebox.TableInbox, ids["b1"], queuebox.ResendEdit{})
	require.NoError(t, err)
	require.Equal(t, []string{"a5", "b1"}, claim(), "the resent row is its aggregate's head again")
	require.Equal(t, []string{"b5"}, claim())
}

// On a partitioned outbox the claim first reads the oldest active row,
// and under an old transaction that probe steps over the entries of every
// row that left the active index since, partition by partition. A hinted
// claim starts it at the bound the last claim returned; under another
// requeue count it reads from the start again.
func TestHintedClaimStartsTheActiveFloorAtItsBound(t *testing.T) {
	t.Parallel()
	_, db := partitioned(t)
	today := pastDays(t, db)
	holdSnapshot(t, db)
	// Yesterday's rows, in shuffled created_at order as many writers
	// leave them, so that each entry the probe steps over costs a buffer.
	exec(t, db, `INSERT INTO outbox (topic, key, payload, destination, created_at)
		SELECT 't', 'k-' || (g % 50), '{}', 'up', $1::timestamptz + random() * interval '20 hours'
		FROM generate_series(1, 20000) g`, today.AddDate(0, 0, -1))
	exec(t, db, `UPDATE outbox SET state = 'sent' WHERE created_at < $1`, today)
	insertAt(t, db, 300, 50, "pending", today.Add(time.Minute))
	stmt, err := postgres.RenderClaim("outbox_claim", partitionedLayout(), true)
	require.NoError(t, err)
	args := []any{boundBatch, "", 60_000, nil, "", nil, nil, nil, nil}
	fullRows, full := explainBuffers(t, db, stmt, append(args, int64(0), nil)...)
	rows, bounded := explainBuffers(t, db, stmt, append(args, int64(0), today)...)
	require.Equal(t, float64(50), fullRows, "the full probe finds the heads of the 50 lanes")
	require.Equal(t, float64(50), rows, "so does the bounded one")
	require.Less(t, bounded*3, full, "buffers from the bound (%v) against from the start (%v)", bounded, full)
	_, stale := explainBuffers(t, db, stmt, append(args, int64(1), today)...)
	require.Greater(t, stale, bounded*3, "a bound read under another requeue count is not used")
}

// A hinted walk probes the gap before each hinted lane up to that lane,
// and no further: its cost does not follow the depth of the lanes'
// backlogs, wherever the walk's cursor stands and however many lanes a
// key has. Two bounds of the gap's probes were row comparisons, at which
// PostgreSQL 15's index scan starts and stops on the key alone. The gap's
// upper bound made each probe read the whole backlog of the lane after it
// (ten lanes 20,000 rows deep made deliver's claim take 60 ms, and deliver
// sent about 90 rows a second). Its lower bound, within one key, made the
// probe after a lane read that lane's whole backlog: the cursor's lane at
// every claim (the wrap-around's last step starts at the mark of the
// cursor's lane), and with a fan-out each lane but the last of every key.
func TestHintedWalkCostsNothingPerRowOfTheLanesBacklogs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		keys, dests  int
		cursorOnLane bool
	}{
		{name: "one lane a key, cursor at the start", keys: 10, dests: 1},
		{name: "one lane a key, cursor on a lane", keys: 10, dests: 1, cursorOnLane: true},
		{name: "three lanes a key, cursor on a lane", keys: 4, dests: 3, cursorOnLane: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lanes := tc.keys * tc.dests
			shallow := hintedWalkBuffers(t, tc.keys, tc.dests, 500, tc.cursorOnLane)
			deep := hintedWalkBuffers(t, tc.keys, tc.dests, 5_000, tc.cursorOnLane)
			// A lane's backlog of 5,000 entries fills about 20 pages of
			// the lane index; a walk that reads none of them costs what it
			// costs on lanes of 500 rows (the same depth of the index's
			// tree), give or take a page a lane.
			require.Less(t, deep, shallow+float64(lanes),
				"buffers of the hinted walk on lanes 5,000 deep (%v) and 500 deep (%v)", deep, shallow)
		})
	}
}

// hintedWalkBuffers fills a new outbox with keys keys of dests lanes
// each, depth rows a lane, and returns the buffers that the scans of the
// lane index read in a claim hinted at every lane's head. (The claim's
// probes of the primary key are left out: its tree of random ids gains a
// level at about the deep case's size, at random.) With cursorOnLane the
// walk's cursor stands on a lane in the middle, as after a claim;
// otherwise at the start.
func hintedWalkBuffers(t *testing.T, keys, dests, depth int, cursorOnLane bool) float64 {
	t.Helper()
	db, l := boundSchema(t)
	exec(t, db, `INSERT INTO outbox (topic, key, payload, destination)
		SELECT 't', 'k-' || (g % $1), '{}', 'd-' || (g / $1 % $2)
		FROM generate_series(0, $3 - 1) g`, keys, dests, keys*dests*depth)
	exec(t, db, `ANALYZE outbox`)
	lanes := keys * dests
	hk, hd, seqs := laneHints(t, db, `SELECT key, destination, min(sequence) FROM outbox
		GROUP BY key, destination ORDER BY key, destination`)
	require.Len(t, hk, lanes)
	cursorKey, cursorDest := "", ""
	if cursorOnLane {
		cursorKey, cursorDest = hk[lanes/2], hd[lanes/2]
	}
	claim, err := postgres.RenderClaim("outbox_claim", l, true)
	require.NoError(t, err)
	args := []any{boundBatch, cursorKey, 60_000, nil, cursorDest, nil, hk, hd, seqs, int64(0), nil}
	plan := explainPlan(t, db, claim, args...)
	require.Equal(t, float64(lanes), plan.Rows, "a head per lane")
	return plan.buffersOf("idx_outbox_lane_sequence")
}

// laneHints runs query, which returns a key, a destination and a
// sequence per lane, and returns them as the claim's hint arrays.
func laneHints(t *testing.T, db *postgres.DB, query string) (keys, dests []string, seqs []int64) {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), query)
	require.NoError(t, err)
	for rows.Next() {
		var k, d string
		var s int64
		require.NoError(t, rows.Scan(&k, &d, &s))
		keys, dests, seqs = append(keys, k), append(dests, d), append(seqs, s)
	}
	require.NoError(t, rows.Err())
	return keys, dests, seqs
}
