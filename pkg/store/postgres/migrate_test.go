package postgres_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/migrations"
	"github.com/alternayte/queuebox/pkg/migrate"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

var quietLog = pgtest.Quiet

func openDB(t *testing.T, s pgtest.Schema) *postgres.DB { return s.Open(t, 8) }

func migrated(t *testing.T) (pgtest.Schema, *postgres.DB) { return pgtest.Migrated(t, 8) }

// bundled returns the versions of the bundled PostgreSQL migrations from
// the one given on, in order, so the tests follow the files as they grow.
func bundled(t *testing.T, from int) []int {
	t.Helper()
	ms, err := migrate.Load(migrations.Postgres)
	require.NoError(t, err)
	var out []int
	for _, m := range ms {
		if m.Version >= from {
			out = append(out, m.Version)
		}
	}
	return out
}

type column struct {
	name, typ, nullable, def string
}

// The documented columns of the outbox and inbox table pages, and of the
// delivery ledger (V17).
var wantColumns = map[string][]column{
	"outbox": {
		{"id", "uuid", "NO", "gen_random_uuid()"},
		{"topic", "character varying(255)", "NO", ""},
		{"key", "character varying(255)", "YES", ""},
		{"payload", "jsonb", "NO", ""},
		{"headers", "jsonb", "NO", "'{}'::jsonb"},
		{"aggregate_type", "character varying(255)", "YES", ""},
		{"state", "character varying(50)", "NO", "'pending'::character varying"},
		{"attempt", "integer", "NO", "0"},
		{"max_attempts", "integer", "NO", "5"},
		{"scheduled_at", "timestamp with time zone", "NO", "CURRENT_TIMESTAMP"},
		{"created_at", "timestamp with time zone", "NO", "CURRENT_TIMESTAMP"},
		{"updated_at", "timestamp with time zone", "NO", "CURRENT_TIMESTAMP"},
		{"claimed_at", "timestamp with time zone", "YES", ""},
		{"claim_token", "uuid", "YES", ""},
		{"lease_expires_at", "timestamp with time zone", "YES", ""},
		{"last_error", "text", "YES", ""},
		{"sequence", "bigint", "NO", "nextval('outbox_sequence_seq'::regclass)"},
		{"discarded_at", "timestamp with time zone", "YES", ""},
		{"destination", "character varying(200)", "NO", "''::character varying"},
		{"origin_id", "uuid", "YES", ""},
	},
	// V17, the delivery ledger (docs/dead-letters.md).
	"outbox_attempts": {
		{"id", "bigint", "NO", "nextval('outbox_attempts_id_seq'::regclass)"},
		{"outbox_id", "uuid", "NO", ""},
		{"message_id", "uuid", "NO", ""},
		{"destination", "character varying(200)", "NO", ""},
		{"attempt", "integer", "NO", ""},
		{"started_at", "timestamp with time zone", "NO", ""},
		{"duration_ms", "integer", "NO", ""},
		{"outcome", "character varying(16)", "NO", ""},
		{"failure_class", "character varying(32)", "YES", ""},
		{"status", "character varying(64)", "YES", ""},
		{"answer", "text", "YES", ""},
		{"recorded_at", "timestamp with time zone", "NO", "CURRENT_TIMESTAMP"},
	},
	"inbox": {
		{"id", "uuid", "NO", "gen_random_uuid()"},
		{"source", "character varying(255)", "NO", ""},
		{"idempotency_key", "character varying(255)", "NO", ""},
		{"aggregate_id", "character varying(255)", "YES", ""},
		{"event_type", "character varying(255)", "YES", ""},
		{"payload", "jsonb", "NO", ""},
		{"headers", "jsonb", "NO", "'{}'::jsonb"},
		{"correlation_id", "character varying(128)", "YES", ""},
		{"consumption", "character varying(4)", "NO", "'push'::character varying"},
		{"state", "character varying(50)", "NO", "'pending'::character varying"},
		{"created_at", "timestamp with time zone", "NO", "CURRENT_TIMESTAMP"},
		{"processed_at", "timestamp with time zone", "YES", ""},
		{"scheduled_at", "timestamp with time zone", "NO", "CURRENT_TIMESTAMP"},
		{"attempt", "integer", "NO", "0"},
		{"last_error", "text", "YES", ""},
		{"claimed_at", "timestamp with time zone", "YES", ""},
		{"claim_token", "uuid", "YES", ""},
		{"lease_expires_at", "timestamp with time zone", "YES", ""},
		{"discarded_at", "timestamp with time zone", "YES", ""},
	},
	// V18, the requeue counts that keep the claims' lane hints honest
	// (docs/concepts.md).
	"queuebox_requeues": {
		{"queue", "character varying(16)", "NO", ""},
		{"requeues", "bigint", "NO", ""},
	},
}

// The documented indexes: name -> columns and filter as pg_get_indexdef
// prints them.
var wantIndexes = map[string]map[string]string{
	"outbox": {
		"outbox_pkey":                   "(id)",
		"idx_outbox_pending_scheduled":  "(state, scheduled_at) WHERE ((state)::text = 'pending'::text)",
		"idx_outbox_topic":              "(topic)",
		"idx_outbox_processing_claimed": "(claimed_at) WHERE ((state)::text = 'processing'::text)",
		"idx_outbox_lane_sequence":      "(key, destination, sequence) WHERE (((state)::text = ANY ((ARRAY['pending'::character varying, 'processing'::character varying])::text[])) AND ((key)::text > ''::text))",
		"idx_outbox_unrouted":           "(sequence) WHERE (((state)::text = 'pending'::text) AND ((destination)::text = ''::text) AND ((key)::text > ''::text))",
		"idx_outbox_origin":             "(origin_id) WHERE (origin_id IS NOT NULL)",
		"idx_outbox_dead_sequence":      "(sequence) WHERE ((state)::text = 'dead'::text)",
		"idx_outbox_unkeyed_due":        "(scheduled_at, sequence) WHERE (((state)::text = 'pending'::text) AND (key IS NULL))",
		"idx_outbox_empty_key_due":      "(scheduled_at, sequence) WHERE (((state)::text = 'pending'::text) AND ((key)::text = ''::text))",
	},
	"outbox_attempts": {
		"outbox_attempts_pkey":            "(id)",
		"idx_outbox_attempts_outbox":      "(outbox_id, id)",
		"idx_outbox_attempts_destination": "(destination, started_at)",
		"idx_outbox_attempts_started":     "(started_at)",
	},
	"queuebox_requeues": {
		"queuebox_requeues_pkey": "(queue)",
	},
	"inbox": {
		"inbox_pkey":                    "(id)",
		"uq_inbox_source_idempotency":   "(source, idempotency_key)",
		"idx_inbox_pending":             "(state) WHERE ((state)::text = 'pending'::text)",
		"idx_inbox_source":              "(source)",
		"idx_inbox_aggregate_state":     "(aggregate_id, state)",
		"idx_inbox_processing_claimed":  "(claimed_at) WHERE ((state)::text = 'processing'::text)",
		"idx_inbox_state_created":       "(state, created_at)",
		"idx_inbox_consumption_pending": "(consumption, state, scheduled_at)",
		"idx_inbox_pull_pending":        "(source, scheduled_at, created_at, id) WHERE (((consumption)::text = 'pull'::text) AND ((state)::text = 'pending'::text))",
		"idx_inbox_pull_busy":           "(source, aggregate_id, lease_expires_at) WHERE (((consumption)::text = 'pull'::text) AND ((state)::text = 'processing'::text))",
		"idx_inbox_push_heads":          "(aggregate_id, state, created_at, id) WHERE (((consumption)::text = 'push'::text) AND ((state)::text = ANY ((ARRAY['pending'::character varying, 'processing'::character varying])::text[])) AND (aggregate_id IS NOT NULL))",
		"idx_inbox_push_unkeyed":        "(created_at, id) WHERE (((consumption)::text = 'push'::text) AND ((state)::text = 'pending'::text) AND (aggregate_id IS NULL))",
	},
}

func TestMigrateCreatesTheDocumentedSchema(t *testing.T) {
	t.Parallel()
	s, _ := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	for table, want := range wantColumns {
		rows, err := conn.Query(ctx, `SELECT column_name, format_type(a.atttypid, a.atttypmod), is_nullable, COALESCE(column_default, '')
			FROM information_schema.columns c
			JOIN pg_attribute a ON a.attrelid = to_regclass($1) AND a.attname = c.column_name
			WHERE c.table_schema = $2 AND c.table_name = $1`, table, s.Name)
		require.NoError(t, err)
		got := map[string]column{}
		for rows.Next() {
			var c column
			require.NoError(t, rows.Scan(&c.name, &c.typ, &c.nullable, &c.def))
			got[c.name] = c
		}
		require.NoError(t, rows.Err())
		require.Len(t, got, len(want), "columns of %s", table)
		for _, w := range want {
			require.Equal(t, w, got[w.name], "column %s.%s", table, w.name)
		}
		idx := map[string]string{}
		rows, err = conn.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2`, s.Name, table)
		require.NoError(t, err)
		for rows.Next() {
			var name, def string
			require.NoError(t, rows.Scan(&name, &def))
			idx[name] = def[strings.Index(def, " USING btree ")+len(" USING btree "):]
		}
		require.NoError(t, rows.Err())
		require.Equal(t, wantIndexes[table], idx, "indexes of %s", table)
	}
	var check string
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = to_regclass('inbox') AND contype = 'c'`).Scan(&check))
	require.Contains(t, check, "'push'")
	require.Contains(t, check, "'pull'")
	var seqOwned string
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_get_serial_sequence('outbox', 'sequence')`).Scan(&seqOwned))
	require.Equal(t, s.Name+".outbox_sequence_seq", seqOwned)
	var stateCols int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = 'queuebox_capture_state'`, s.Name).Scan(&stateCols))
	require.Positive(t, stateCols)
}

func TestDocumentedInsertsRun(t *testing.T) {
	t.Parallel()
	s, _ := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO outbox (topic, payload) VALUES ('order.created', '{"orderId":"1"}')`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, key, payload, headers, aggregate_type)
		VALUES ('order.created', 'cust-42',
		  '{"orderId":"11111111-1111-1111-1111-111111111111","amount":99.99}'::jsonb,
		  '{"X-Tenant":"acme"}'::jsonb, 'order')`)
	require.NoError(t, err)
	var state string
	var attempt, maxAttempts int
	var seq1, seq2 int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT state, attempt, max_attempts, sequence FROM outbox WHERE key IS NULL`).
		Scan(&state, &attempt, &maxAttempts, &seq1))
	require.Equal(t, "pending", state)
	require.Equal(t, 0, attempt)
	require.Equal(t, 5, maxAttempts)
	require.NoError(t, conn.QueryRow(ctx, `SELECT sequence FROM outbox WHERE key = 'cust-42'`).Scan(&seq2))
	require.Greater(t, seq2, seq1)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, payload, headers) VALUES ('t', '{}', NULL)`)
	require.Error(t, err, "an explicit NULL headers fails the insert")
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload) VALUES ('stripe', 'evt_1', '{}')`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload) VALUES ('stripe', 'evt_1', '{}')`)
	require.ErrorContains(t, err, "uq_inbox_source_idempotency")
	_, err = conn.Exec(ctx, `INSERT INTO inbox (source, idempotency_key, payload, consumption) VALUES ('s', 'k', '{}', 'poll')`)
	require.Error(t, err, "the check constraint allows push and pull only")
}

func TestMigrateTwiceIsANoOp(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	db := openDB(t, s)
	first, err := db.Migrate(context.Background(), quietLog())
	require.NoError(t, err)
	require.Equal(t, bundled(t, 1), first)
	second, err := db.Migrate(context.Background(), quietLog())
	require.NoError(t, err)
	require.Empty(t, second)
	var rows int
	require.NoError(t, s.Connect(t).QueryRow(context.Background(),
		`SELECT count(*) FROM flyway_schema_history WHERE success`).Scan(&rows))
	require.Equal(t, len(first), rows)
}

func TestConcurrentStartsMigrateOnce(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	const replicas = 4
	applied := make([][]int, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		db := openDB(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := db.Migrate(context.Background(), quietLog())
			require.NoError(t, err)
			applied[i] = v
		}()
	}
	wg.Wait()
	total := 0
	for _, a := range applied {
		total += len(a)
	}
	want := len(bundled(t, 1))
	require.Equal(t, want, total, "each version applied by exactly one replica")
	var rows int
	require.NoError(t, s.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM flyway_schema_history`).Scan(&rows))
	require.Equal(t, want, rows)
}

// A schema that a newer QueueBox migrated further still starts this one:
// the upgrade guide lets the previous release run against the new schema.
func TestMigrateRunsAgainstANewerSchema(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	_, err := s.Connect(t).Exec(context.Background(), `INSERT INTO flyway_schema_history
		(installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
		SELECT max(installed_rank) + 1, '999', 'from the future', 'SQL', 'V999__from_the_future.sql', 0, 'test', 0, true
		FROM flyway_schema_history`)
	require.NoError(t, err)
	var logged bytes.Buffer
	applied, err := db.Migrate(context.Background(), slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	require.Empty(t, applied)
	require.Contains(t, logged.String(), "V999__from_the_future.sql")
}

// V11 on a populated outbox numbers the rows in created_at order, and the
// next insert continues after them.
func TestMigrateV11NumbersExistingRowsInCreatedAtOrder(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	conn := s.Connect(t)
	ctx := context.Background()
	// Back to the schema of V10, with rows inserted out of created_at order.
	_, err := conn.Exec(ctx, `ALTER TABLE outbox DROP COLUMN sequence;
		DROP SEQUENCE IF EXISTS outbox_sequence_seq;
		DELETE FROM flyway_schema_history WHERE version::int >= 11;
		INSERT INTO outbox (topic, key, payload, created_at) VALUES
			('third', 'k', '{}', now() - interval '1 minute'),
			('first', 'k', '{}', now() - interval '3 minutes'),
			('second', 'k', '{}', now() - interval '2 minutes')`)
	require.NoError(t, err)
	applied, err := db.Migrate(ctx, quietLog())
	require.NoError(t, err)
	require.Equal(t, bundled(t, 11), applied)
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, key, payload) VALUES ('fourth', 'k', '{}')`)
	require.NoError(t, err)
	rows, err := conn.Query(ctx, `SELECT topic FROM outbox ORDER BY sequence`)
	require.NoError(t, err)
	var order []string
	for rows.Next() {
		var topic string
		require.NoError(t, rows.Scan(&topic))
		order = append(order, topic)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"first", "second", "third", "fourth"}, order)
}

// An account that may read and write the tables but not create any still
// starts with database.migrate true once the schema is up to date.
func TestMigrateUpToDateNeedsNoDDLRights(t *testing.T) {
	t.Parallel()
	s, _ := migrated(t)
	role := "qbt_dml_" + strings.TrimPrefix(s.Name, "qbt_")
	admin := s.Connect(t)
	ctx := context.Background()
	_, err := admin.Exec(ctx, `CREATE ROLE `+role+` LOGIN;
		GRANT USAGE ON SCHEMA `+s.Name+` TO `+role+`;
		GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA `+s.Name+` TO `+role)
	require.NoError(t, err)
	t.Cleanup(func() {
		c := pgtest.Schema{URL: s.BaseURL}.Connect(t)
		_, _ = c.Exec(context.Background(), `DROP OWNED BY `+role+`; DROP ROLE IF EXISTS `+role)
	})
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	u.User = url.User(role)
	db := pgtest.Schema{Name: s.Name, URL: u.String()}.Open(t, 2)
	applied, err := db.Migrate(ctx, quietLog())
	require.NoError(t, err)
	require.Empty(t, applied)
}

// A bundled version missing below the newest applied one is refused: the
// history says an older change never ran under a newer one.
func TestMigrateRefusesAGapInTheHistory(t *testing.T) {
	t.Parallel()
	s, db := migrated(t)
	_, err := s.Connect(t).Exec(context.Background(), `DELETE FROM flyway_schema_history WHERE version = '9'`)
	require.NoError(t, err)
	_, err = db.Migrate(context.Background(), quietLog())
	require.ErrorContains(t, err, "V9")
	require.ErrorContains(t, err, "never applied")
}

// A pgx parse failure names the masked URL, never the connection string:
// pgx's own masking misses the tail of a quoted password.
func TestOpenParseErrorHidesThePassword(t *testing.T) {
	t.Parallel()
	_, err := postgres.Open(context.Background(), postgres.Options{
		ConnString: `host=127.0.0.1 password='hun\'ter2 tail' sslmode=bogus`,
		DisplayURL: "jdbc:postgresql://127.0.0.1/q",
	})
	require.Error(t, err)
	require.Contains(t, err.Error(), "jdbc:postgresql://127.0.0.1/q")
	require.Contains(t, err.Error(), "sslmode is invalid")
	require.NotContains(t, err.Error(), "tail")
	require.NotContains(t, err.Error(), "ter2")
}

func TestStartupTimeoutNamesTheMaskedURL(t *testing.T) {
	t.Parallel()
	_, err := postgres.Open(context.Background(), postgres.Options{
		ConnString:     "postgres://queuebox:hunter2@127.0.0.1:1/queuebox?sslmode=disable&connect_timeout=1",
		DisplayURL:     "jdbc:postgresql://127.0.0.1:1/queuebox",
		StartupTimeout: 600 * time.Millisecond, Logger: quietLog(),
	})
	require.Error(t, err)
	require.Contains(t, err.Error(), "jdbc:postgresql://127.0.0.1:1/queuebox")
	require.Contains(t, err.Error(), "database.startupTimeoutMs")
	require.NotContains(t, err.Error(), "hunter2")
}
