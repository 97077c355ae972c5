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
	var keys, dests []string
	var seqs []int64
	rows, err := db.Pool.Query(context.Background(), `SELECT key, destination, max(sequence) FROM outbox
		WHERE state = 'sent' GROUP BY key, destination`)
	require.NoError(t, err)
	for rows.Next() {
		var k, d string
		var s int64
		require.NoError(t, rows.Scan(&k, &d, &s))
		keys, dests, seqs = append(keys, k), append(dests, d), append(seqs, s)
	}
	require.NoError(t, rows.Err())
	require.Len(t, keys, lanes)
	var count int64 // no move back to pending was counted yet

	claim, err := postgres.RenderClaim("outbox_claim", l, true)
	require.NoError(t, err)
	args := []any{boundBatch, "", 60_000, nil, "", nil}
	fullRows, full := explainBuffers(t, db, claim, append(args, nil, nil, nil, nil)...)
	rowsHinted, hinted := explainBuffers(t, db, claim, append(args, keys, dests, seqs, count)...)
	require.Equal(t, float64(boundBatch), fullRows, "the full walk claims a head per lane")
	require.Equal(t, float64(boundBatch), rowsHinted, "the hinted walk claims as many")
	require.Less(t, hinted*5, full, "buffers of the hinted walk (%v) against the full one (%v)", hinted, full)

	_, stale := explainBuffers(t, db, claim, append(args, keys, dests, seqs, count+1)...)
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
