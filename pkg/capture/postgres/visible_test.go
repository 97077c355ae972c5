package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	wakepg "github.com/alternayte/queuebox/pkg/wake/postgres"
)

// tempSlot opens a replication connection to schema's database and
// creates on it a temporary pgoutput slot named after the schema, which
// goes with the connection; the test's end closes it.
func tempSlot(ctx context.Context, t *testing.T, schema pgtest.Schema) (*pgconn.PgConn, pglogrepl.CreateReplicationSlotResult) {
	t.Helper()
	rep, err := pgconn.Connect(ctx, schema.BaseURL+"&replication=database")
	require.NoError(t, err)
	t.Cleanup(func() { _ = rep.Close(context.Background()) })
	slot, err := pglogrepl.CreateReplicationSlot(ctx, rep, schema.Name, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, SnapshotAction: "NOEXPORT_SNAPSHOT"})
	require.NoError(t, err)
	return rep, slot
}

// TestReportedCommitsAreVisibleOnceFinished runs the stream against the
// local PostgreSQL (wal_level = logical) while four sessions commit one
// row each, many times. The stream reports a commit as soon as its record
// is flushed, which can be before other sessions see it; that is why the
// notifier waits. The test checks the wait's premise on every commit:
// once wakepg.PG says the transaction is no longer running, its row is
// visible to a new statement, so a claim sent then finds it.
func TestReportedCommitsAreVisibleOnceFinished(t *testing.T) {
	t.Parallel()
	const commits = 2000
	schema := pgtest.NewSchema(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := schema.Connect(t)
	pub := schema.Name + "_pub"
	for _, sql := range []string{
		"CREATE TABLE vis (id bigserial PRIMARY KEY, x xid8 NOT NULL DEFAULT pg_current_xact_id())",
		"CREATE PUBLICATION " + pub + " FOR TABLE vis",
	} {
		_, err := db.Exec(ctx, sql)
		require.NoError(t, err)
	}
	t.Cleanup(func() { _, _ = schema.Connect(t).Exec(context.Background(), "DROP PUBLICATION IF EXISTS "+pub) })

	rep, slot := tempSlot(ctx, t, schema)
	start, err := pglogrepl.ParseLSN(slot.ConsistentPoint)
	require.NoError(t, err)

	xids := make(chan uint32, commits)
	sctx, stop := context.WithCancel(ctx)
	streamDone := make(chan error, 1)
	go func() {
		streamDone <- runStream(sctx, rep, capture.Settings{Slot: schema.Name, Publication: pub, Schema: schema.Name, Table: "vis"},
			start, events{inserted: func(xid uint32, _ time.Time) { xids <- xid }})
	}()

	// Each writer waits for a credit, which the checker returns after each
	// commit it checked, so the checker sees every commit as it arrives
	// rather than long after.
	credits := make(chan struct{}, 4)
	for range cap(credits) {
		credits <- struct{}{}
	}
	var written atomic.Int64
	var writers sync.WaitGroup
	for range cap(credits) {
		writers.Add(1)
		go func() {
			defer writers.Done()
			w := schema.Connect(t)
			for written.Add(1) <= commits {
				<-credits
				_, err := w.Exec(ctx, "INSERT INTO vis DEFAULT VALUES")
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}

	check := schema.Connect(t)
	visible := func(xid uint32) bool {
		var n int
		require.NoError(t, check.QueryRow(ctx, "SELECT count(*) FROM vis WHERE x::text::bigint % 4294967296 = $1", int64(xid)).Scan(&n))
		return n == 1
	}
	pg := wakepg.PG{Q: check}
	early := 0
	for range commits {
		var xid uint32
		select {
		case xid = <-xids:
		case err := <-streamDone:
			t.Fatalf("the stream ended: %v", err)
		case <-ctx.Done():
			t.Fatal("the stream stopped reporting commits")
		}
		if !visible(xid) {
			early++
		}
		for {
			running, err := pg.Running(ctx, []uint32{xid})
			require.NoError(t, err)
			if len(running) == 0 {
				break
			}
		}
		require.True(t, visible(xid), "transaction %d is finished but its row is not visible", xid)
		credits <- struct{}{}
	}
	t.Logf("%d of %d commits were reported before other sessions could see them", early, commits)
	writers.Wait()
	stop()
	require.NoError(t, <-streamDone)
}
