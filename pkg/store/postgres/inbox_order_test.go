package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// Two sources store rows of one aggregate at once (a JetStream source and
// a RabbitMQ source, each in order on its own). The first source's row
// r1 is held before its commit; the second source's j1 comes after it.
// The relay must still forward r1 before r2, the first source's next row:
// before ingest ordered the rows of an aggregate, j1 committed first, the
// relay took it and hinted the aggregate at j1, r1 then committed below
// that hint, and the hinted walk forwarded r2 ahead of r1 (the chaos
// suite's "out of key order" with both inboxes in order). Now the writes
// of one aggregate commit in the order of their created_at: j1 waits for
// r1, and the relay forwards r1, j1, r2.
func TestRelayForwardsAnAggregateInCommitOrderAcrossSources(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(*testing.T) (pgtest.Schema, *postgres.DB, schema.Layout)
		// hold makes r1's insert wait, in tx, after its row took its
		// place: the key's unique entry, or the key's lock on a
		// partitioned inbox.
		hold string
	}{
		{"plain", func(t *testing.T) (pgtest.Schema, *postgres.DB, schema.Layout) {
			s, db := migrated(t)
			return s, db, schema.New(schema.Postgres, schema.DefaultNames())
		}, `INSERT INTO inbox (source, idempotency_key, payload, consumption) VALUES ('rab', 'r1', '{}', 'push')`},
		{"partitioned", func(t *testing.T) (pgtest.Schema, *postgres.DB, schema.Layout) {
			s, db := partitioned(t)
			return s, db, partitionedLayout()
		}, `SELECT pg_advisory_xact_lock(hashtext('queuebox.inbox.key'), hashtext('rab' || chr(10) || 'r1'))`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, db, l := c.open(t)
			relayAcrossSources(t, s, db, l, c.hold)
		})
	}
}

func relayAcrossSources(t *testing.T, s pgtest.Schema, db *postgres.DB, l schema.Layout, holdStatement string) {
	ctx := context.Background()
	in, err := postgres.NewInbox(db, l)
	require.NoError(t, err)
	relay, err := postgres.NewRelay(db, l, queuebox.RelayParams{Lease: time.Minute, Sources: []string{"jet", "rab"}})
	require.NoError(t, err)
	row := func(source, key string) queuebox.ReceivedRow {
		return queuebox.ReceivedRow{ID: uuid.Must(uuid.NewV7()).String(), Source: source, IdempotencyKey: key,
			AggregateID: ptr("k"), Payload: []byte(`{}`)}
	}
	var forwarded []string
	drain := func() {
		t.Helper()
		for range 10 {
			got, err := relay.Claim(ctx, 10)
			require.NoError(t, err)
			if len(got) == 0 {
				return
			}
			p := queuebox.ForwardParams{MaxAttempts: 5}
			for _, r := range got {
				forwarded = append(forwarded, r.IdempotencyKey)
				p.Rows = append(p.Rows, queuebox.Forward{Lease: r.Lease(), Topic: "t", Headers: []byte(`{}`)})
			}
			kept, err := relay.Forward(ctx, p)
			require.NoError(t, err)
			require.Len(t, kept, len(p.Rows))
		}
		t.Fatal("the relay kept claiming rows")
	}
	// Two heads of the aggregate taken one claim after the other: the
	// relay hints it (lanehint hints a lane claimed twice).
	for _, key := range []string{"p1", "p2"} {
		_, _, err := in.Insert(ctx, row("jet", key))
		require.NoError(t, err)
		drain()
	}

	holder := hold(t, s, holdStatement)
	first := make(chan error, 1)
	go func() {
		_, err := in.InsertBatch(ctx, []queuebox.ReceivedRow{row("rab", "r1")})
		first <- err
	}()
	holder.WaitBlocked(t, 1)
	second := make(chan error, 1)
	go func() {
		_, _, err := in.Insert(ctx, row("jet", "j1"))
		second <- err
	}()
	// j1 is either stored (nothing orders it after r1) or waits for r1.
	require.Eventually(t, func() bool {
		return count(db, `SELECT count(*) FROM inbox WHERE idempotency_key = 'j1'`) == 1 || holder.blocked() >= 2
	}, time.Minute, 5*time.Millisecond, "j1 neither stored nor waiting")
	drain()
	require.NoError(t, holder.tx.Rollback(ctx))
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	_, _, err = in.Insert(ctx, row("rab", "r2"))
	require.NoError(t, err)
	drain()
	require.Equal(t, []string{"p1", "p2", "r1", "j1", "r2"}, forwarded,
		"the rows of the aggregate in the order they committed, each source's in its own order")
}

// count runs a count for a poll: -1 when the query fails.
func count(db *postgres.DB, query string) int {
	var n int
	if err := db.Pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
		return -1
	}
	return n
}

// The rows of one batch share one created_at, stamped after the locks, so
// the relay takes them in the order of their ids, the order of the batch.
func TestInboxBatchRowsShareOneCreatedAt(t *testing.T) {
	t.Parallel()
	_, db := migrated(t)
	in := newInbox(t, db)
	rows := batchRows("a", "b", "c", "d")
	for i := range rows {
		rows[i].AggregateID = ptr([]string{"x", "y"}[i%2])
	}
	got, err := in.InsertBatch(context.Background(), rows)
	require.NoError(t, err)
	require.Len(t, got, 4)
	require.Equal(t, 1, count(db, `SELECT count(DISTINCT created_at) FROM inbox`))
}

// Several sources store rows of shared aggregates at once, each source
// its batches one after another, while the relay forwards: every
// source's rows of an aggregate come out in the order the source stored
// them, and every aggregate's in created_at order. The relay claims
// every aggregate at each claim and keeps up, so its hints sit at the
// newest rows, where a late commit would fall below them; without the
// aggregate locks this test fails in every run.
func TestRelayKeepsEachSourcesOrderUnderConcurrentSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db := pgtest.Migrated(t, 12)
	l := schema.New(schema.Postgres, schema.DefaultNames())
	in, err := postgres.NewInbox(db, l)
	require.NoError(t, err)
	sources := []string{"s0", "s1", "s2", "s3"}
	relay, err := postgres.NewRelay(db, l, queuebox.RelayParams{Lease: time.Minute, Sources: sources})
	require.NoError(t, err)
	// Each insert waits a little after its rows took their created_at and
	// before it commits, so that inserts overlap and commit in any order.
	exec(t, db, `CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_sleep(random() * 0.005); RETURN NEW; END $$`)
	exec(t, db, `CREATE TRIGGER slow_insert BEFORE INSERT ON inbox FOR EACH ROW EXECUTE FUNCTION slow_insert()`)
	const batches, perBatch = 60, 2
	aggregates := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	total := len(sources) * batches * perBatch

	stored := make(chan error, len(sources))
	for _, source := range sources {
		go func() {
			n := 0
			for range batches {
				rows := make([]queuebox.ReceivedRow, perBatch)
				for i := range rows {
					rows[i] = queuebox.ReceivedRow{ID: uuid.Must(uuid.NewV7()).String(), Source: source,
						IdempotencyKey: fmt.Sprintf("%s-%04d", source, n), AggregateID: ptr(aggregates[n%len(aggregates)]),
						Payload: []byte(`{}`)}
					n++
				}
				if _, err := in.InsertBatch(ctx, rows); err != nil {
					stored <- err
					return
				}
			}
			stored <- nil
		}()
	}
	type out struct{ key, agg string }
	var forwarded []out
	for deadline := time.Now().Add(2 * time.Minute); len(forwarded) < total; {
		require.True(t, time.Now().Before(deadline), "forwarded %d of %d rows", len(forwarded), total)
		got, err := relay.Claim(ctx, 64)
		require.NoError(t, err)
		p := queuebox.ForwardParams{MaxAttempts: 5}
		for _, r := range got {
			forwarded = append(forwarded, out{r.IdempotencyKey, *r.AggregateID})
			p.Rows = append(p.Rows, queuebox.Forward{Lease: r.Lease(), Topic: "t", Headers: []byte(`{}`)})
		}
		if len(p.Rows) > 0 {
			_, err = relay.Forward(ctx, p)
			require.NoError(t, err)
		}
	}
	for range sources {
		require.NoError(t, <-stored)
	}
	last := map[string]string{} // source and aggregate: the last key forwarded
	for _, f := range forwarded {
		source, _, _ := strings.Cut(f.key, "-")
		lane := source + "/" + f.agg
		require.Less(t, last[lane], f.key, "%s forwarded after %s", f.key, last[lane])
		last[lane] = f.key
	}
	require.Zero(t, count(db, `SELECT count(*) FROM (
		SELECT created_at < max(created_at) OVER (PARTITION BY aggregate_id ORDER BY processed_at, id
			ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS late FROM inbox) x WHERE late`),
		"rows forwarded after a later row of their aggregate")
}
