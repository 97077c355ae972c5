package retention_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/retention"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

type pgEnv struct {
	conn  *pgx.Conn
	db    *postgres.DB
	store *postgres.Retention
}

// migratedDB gives the test its own migrated schema. tweak runs on the
// migrated schema before the store renders its statements (custom names).
func migratedDB(t *testing.T, db config.Database, tweak ...string) pgEnv {
	t.Helper()
	s, pool := pgtest.Migrated(t, 4)
	conn := s.Connect(t)
	for _, stmt := range tweak {
		_, err := conn.Exec(context.Background(), stmt)
		require.NoError(t, err)
	}
	store, err := postgres.NewRetention(pool, schema.New(schema.Postgres, db))
	require.NoError(t, err)
	return pgEnv{conn: conn, db: pool, store: store}
}

func defaultDB() config.Database { return config.Default().Database }

// outboxRow inserts an outbox row; topic names it. Ages are before now.
func (e pgEnv) outboxRow(t *testing.T, topic, state string, created, updated time.Duration) {
	t.Helper()
	_, err := e.conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload, state, created_at, updated_at)
		VALUES ($1, '{}', $2, now() - make_interval(secs => $3), now() - make_interval(secs => $4))`,
		topic, state, created.Seconds(), updated.Seconds())
	require.NoError(t, err)
}

func (e pgEnv) inboxRow(t *testing.T, key, state string, created time.Duration) {
	t.Helper()
	_, err := e.conn.Exec(context.Background(), `INSERT INTO inbox (source, idempotency_key, payload, state, created_at)
		VALUES ('orders', $1, '{}', $2, now() - make_interval(secs => $3))`,
		key, state, created.Seconds())
	require.NoError(t, err)
}

func (e pgEnv) names(t *testing.T, query string) []string {
	t.Helper()
	rows, err := e.conn.Query(context.Background(), query)
	require.NoError(t, err)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	slices.Sort(names)
	return names
}

func (e pgEnv) outboxTopics(t *testing.T) []string { return e.names(t, `SELECT topic FROM outbox`) }
func (e pgEnv) inboxKeys(t *testing.T) []string {
	return e.names(t, `SELECT idempotency_key FROM inbox`)
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

var allStates = []string{"pending", "processing", "sent", "dead"}

func TestOutboxAgeDeletesOnlyOldFinalRows(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	for _, state := range allStates {
		e.outboxRow(t, state+"-old", state, 48*time.Hour, 2*time.Hour)
		e.outboxRow(t, state+"-new", state, 48*time.Hour, time.Minute)
	}
	// Age counts from updated_at: an old row that changed lately stays.
	e.outboxRow(t, "sent-created-long-ago", "sent", 72*time.Hour, time.Minute)

	m := retention.NewMetrics(prometheus.NewRegistry())
	job := newJob("outbox", 1000, m, func(ctx context.Context, batch int) (int64, error) {
		return e.store.OutboxByAge(ctx, time.Hour, batch)
	})
	job.RunOnce(context.Background())

	require.NoError(t, job.Check(context.Background()))
	require.Equal(t, sorted(
		"pending-old", "pending-new", "processing-old", "processing-new",
		"sent-new", "dead-new", "sent-created-long-ago",
	), e.outboxTopics(t))
	require.Equal(t, 2.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
}

// Pending and processing rows stay whatever their age.
func TestOutboxAgeNeverDeletesActiveRows(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	for i := range 3 {
		e.outboxRow(t, fmt.Sprintf("pending-%d", i), "pending", 10*365*24*time.Hour, 10*365*24*time.Hour)
		e.outboxRow(t, fmt.Sprintf("processing-%d", i), "processing", 10*365*24*time.Hour, 10*365*24*time.Hour)
	}
	n, err := e.store.OutboxByAge(context.Background(), time.Millisecond, 100)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, e.outboxTopics(t), 6)
}

func TestOutboxCountKeepsTheNewestOfEachFinalState(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	for i := range 5 {
		e.outboxRow(t, fmt.Sprintf("sent-%d", i), "sent", 48*time.Hour, time.Duration(i+1)*time.Hour)
	}
	for i := range 4 {
		e.outboxRow(t, fmt.Sprintf("dead-%d", i), "dead", 48*time.Hour, time.Duration(i+1)*time.Hour)
	}
	for i := range 3 {
		e.outboxRow(t, fmt.Sprintf("pending-%d", i), "pending", 48*time.Hour, 48*time.Hour)
		e.outboxRow(t, fmt.Sprintf("processing-%d", i), "processing", 48*time.Hour, 48*time.Hour)
	}

	m := retention.NewMetrics(prometheus.NewRegistry())
	var steps []retention.Deleter
	for _, state := range []string{"sent", "dead"} {
		steps = append(steps, func(ctx context.Context, batch int) (int64, error) {
			return e.store.OutboxByCount(ctx, queuebox.State(state), 2, batch)
		})
	}
	// Batches of one: the drain loop runs the offset statement repeatedly.
	job := newJob("outbox", 1, m, steps...)
	job.RunOnce(context.Background())

	require.NoError(t, job.Check(context.Background()))
	require.Equal(t, sorted(
		"sent-0", "sent-1", // the two newest sent rows (updated 1 h and 2 h ago)
		"dead-0", "dead-1",
		"pending-0", "pending-1", "pending-2",
		"processing-0", "processing-1", "processing-2",
	), e.outboxTopics(t))
	require.Equal(t, 5.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))

	// A second run finds nothing over the count.
	job.RunOnce(context.Background())
	require.Equal(t, 5.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
	require.Len(t, e.outboxTopics(t), 10)
}

func TestInboxAgeDeletesOnlyOldFinalRows(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	for _, state := range []string{"pending", "processing", "processed", "dead"} {
		e.inboxRow(t, state+"-old", state, 2*time.Hour)
		e.inboxRow(t, state+"-new", state, time.Minute)
	}
	m := retention.NewMetrics(prometheus.NewRegistry())
	job := newJob("inbox", 1000, m, func(ctx context.Context, batch int) (int64, error) {
		return e.store.InboxByAge(ctx, time.Hour, batch)
	})
	job.RunOnce(context.Background())

	require.NoError(t, job.Check(context.Background()))
	require.Equal(t, sorted(
		"pending-old", "pending-new", "processing-old", "processing-new", "processed-new", "dead-new",
	), e.inboxKeys(t))
	require.Equal(t, 2.0, testutil.ToFloat64(m.Deleted.WithLabelValues("inbox")))
}

// With batchSize 2 and 5 old rows, one run deletes all 5 in three
// statements, and records the run.
func TestRunOnceDrainsInBatchesAgainstPostgres(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	for i := range 5 {
		e.outboxRow(t, fmt.Sprintf("sent-%d", i), "sent", 3*time.Hour, 2*time.Hour)
	}
	e.outboxRow(t, "pending", "pending", 3*time.Hour, 2*time.Hour)

	reg := prometheus.NewRegistry()
	m := retention.NewMetrics(reg)
	var batches []int64
	job := newJob("outbox", 2, m, func(ctx context.Context, batch int) (int64, error) {
		n, err := e.store.OutboxByAge(ctx, time.Hour, batch)
		batches = append(batches, n)
		return n, err
	})
	before := time.Now().Unix()
	job.RunOnce(context.Background())

	require.Equal(t, []int64{2, 2, 1}, batches)
	require.Equal(t, []string{"pending"}, e.outboxTopics(t))
	require.Equal(t, 5.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
	require.GreaterOrEqual(t, testutil.ToFloat64(m.LastRun.WithLabelValues("outbox")), float64(before))
	require.Equal(t, 2, testutil.CollectAndCount(reg, "queuebox_cleanup_duration_seconds", "queuebox_cleanup_duration_seconds_max"))
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == "queuebox_cleanup_duration_seconds" {
			require.Equal(t, uint64(1), f.GetMetric()[0].GetSummary().GetSampleCount())
		}
	}
}

// A failing statement marks the job down until a run succeeds again.
func TestCheckAgainstPostgres(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	e.inboxRow(t, "processed-old", "processed", 2*time.Hour)
	job := newJob("inbox", 10, retention.NewMetrics(prometheus.NewRegistry()), func(ctx context.Context, batch int) (int64, error) {
		return e.store.InboxByAge(ctx, time.Hour, batch)
	})
	ctx := context.Background()
	_, err := e.conn.Exec(ctx, `ALTER TABLE inbox RENAME TO inbox_away`)
	require.NoError(t, err)
	job.RunOnce(ctx)
	require.ErrorContains(t, job.Check(ctx), "inbox")

	_, err = e.conn.Exec(ctx, `ALTER TABLE inbox_away RENAME TO inbox`)
	require.NoError(t, err)
	job.RunOnce(ctx)
	require.NoError(t, job.Check(ctx))
	require.Empty(t, e.inboxKeys(t))
}

// The statements follow the configured table and column names.
func TestRetentionUsesTheColumnMapping(t *testing.T) {
	t.Parallel()
	db := defaultDB()
	db.OutboxTableName, db.InboxTableName = "qb_outbox", "qb_inbox"
	db.ColumnMapping.Outbox.State = "status"
	db.ColumnMapping.Outbox.UpdatedAt = "changed_at"
	db.ColumnMapping.Outbox.ID = "message_id"
	db.ColumnMapping.Inbox.CreatedAt = "received_at"
	e := migratedDB(t, db,
		`ALTER TABLE outbox RENAME COLUMN state TO status`,
		`ALTER TABLE outbox RENAME COLUMN updated_at TO changed_at`,
		`ALTER TABLE outbox RENAME COLUMN id TO message_id`,
		`ALTER TABLE outbox RENAME TO qb_outbox`,
		`ALTER TABLE inbox RENAME COLUMN created_at TO received_at`,
		`ALTER TABLE inbox RENAME TO qb_inbox`,
	)
	ctx := context.Background()
	_, err := e.conn.Exec(ctx, `INSERT INTO qb_outbox (topic, payload, status, changed_at) VALUES
		('sent-old', '{}', 'sent', now() - interval '2 hours'), ('sent-new', '{}', 'sent', now()),
		('dead-3', '{}', 'dead', now() - interval '3 hours'), ('dead-4', '{}', 'dead', now() - interval '4 hours')`)
	require.NoError(t, err)
	_, err = e.conn.Exec(ctx, `INSERT INTO qb_inbox (source, idempotency_key, payload, state, received_at) VALUES
		('orders', 'old', '{}', 'processed', now() - interval '2 hours'), ('orders', 'new', '{}', 'processed', now())`)
	require.NoError(t, err)

	n, err := e.store.OutboxByAge(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	_, err = e.conn.Exec(ctx, `INSERT INTO qb_outbox (topic, payload, status, changed_at) VALUES
		('dead-1', '{}', 'dead', now() - interval '1 minute'), ('dead-2', '{}', 'dead', now() - interval '2 minutes')`)
	require.NoError(t, err)
	n, err = e.store.OutboxByCount(ctx, "dead", 1, 10)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	n, err = e.store.InboxByAge(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)

	require.Equal(t, []string{"dead-1", "sent-new"}, e.names(t, `SELECT topic FROM qb_outbox`))
	require.Equal(t, []string{"new"}, e.names(t, `SELECT idempotency_key FROM qb_inbox`))
}

// Replicas clean the same table at once: no run fails and together they
// count each deleted row once. A replica whose batch another replica
// emptied may stop early (its batch came back short); the next round
// deletes the rest, so the test runs rounds until no old row is left.
func TestConcurrentCleanupsDeleteEachRowOnce(t *testing.T) {
	t.Parallel()
	e := migratedDB(t, defaultDB())
	_, err := e.conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload, state, updated_at)
		SELECT 'sent-' || g, '{}', CASE WHEN g % 2 = 0 THEN 'sent' ELSE 'dead' END, now() - interval '2 hours'
		FROM generate_series(1, 60) g`)
	require.NoError(t, err)
	for i := range 4 {
		e.outboxRow(t, fmt.Sprintf("pending-%d", i), "pending", 3*time.Hour, 3*time.Hour)
	}

	m := retention.NewMetrics(prometheus.NewRegistry())
	jobs := make([]*retention.Job, 3)
	for i := range jobs {
		jobs[i] = newJob("outbox", 4, m, func(ctx context.Context, batch int) (int64, error) {
			return e.store.OutboxByAge(ctx, time.Hour, batch)
		})
	}
	for round := 0; round < 10 && len(e.outboxTopics(t)) > 4; round++ {
		var wg sync.WaitGroup
		for _, j := range jobs {
			wg.Go(func() { j.RunOnce(context.Background()) })
		}
		wg.Wait()
		for _, j := range jobs {
			require.NoError(t, j.Check(context.Background()))
		}
	}
	require.Equal(t, sorted("pending-0", "pending-1", "pending-2", "pending-3"), e.outboxTopics(t))
	require.Equal(t, 60.0, testutil.ToFloat64(m.Deleted.WithLabelValues("outbox")))
}
