package doctor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/doctor"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// fake is a healthy database unless a test changes a field.
type fake struct {
	ping        error
	migrations  []queuebox.MigrationStatus
	missing     []string
	backlog     queuebox.Backlog
	tables      []queuebox.TableHealth
	tablesErr   error
	tx          *queuebox.OpenTransaction
	conns       queuebox.Connections
	capture     queuebox.CaptureHealth
	captureErr  error
	migrateErrs error
}

func healthy() *fake {
	recent := time.Now().Add(-time.Minute)
	return &fake{
		migrations: []queuebox.MigrationStatus{{Version: 1, State: queuebox.MigrationApplied}, {Version: 2, State: queuebox.MigrationApplied}},
		tables: []queuebox.TableHealth{{Table: "outbox", LiveRows: 10, LastAutovacuum: &recent, AutovacuumOn: true},
			{Table: "inbox", LiveRows: 10, AutovacuumOn: true}},
		conns:   queuebox.Connections{Max: 100, Reserved: 3, Open: 5},
		capture: queuebox.CaptureHealth{WALLevel: "logical", SlotExists: true, SlotActive: true, RetainedBytes: 1 << 20},
	}
}

func (f *fake) Dialect() string            { return "postgres" }
func (f *fake) Ping(context.Context) error { return f.ping }
func (f *fake) Close()                     {}
func (f *fake) Migrations(context.Context) ([]queuebox.MigrationStatus, error) {
	return f.migrations, f.migrateErrs
}
func (f *fake) MissingIndexes(context.Context) ([]string, error)          { return f.missing, nil }
func (f *fake) Backlog(context.Context) (queuebox.Backlog, error)         { return f.backlog, nil }
func (f *fake) Tables(context.Context) ([]queuebox.TableHealth, error)    { return f.tables, f.tablesErr }
func (f *fake) Connections(context.Context) (queuebox.Connections, error) { return f.conns, nil }
func (f *fake) OldestTransaction(context.Context) (queuebox.OpenTransaction, bool, error) {
	if f.tx == nil {
		return queuebox.OpenTransaction{}, false, nil
	}
	return *f.tx, true, nil
}
func (f *fake) Capture(context.Context, string) (queuebox.CaptureHealth, error) {
	return f.capture, f.captureErr
}

func options() doctor.Options {
	return doctor.Options{Migrate: true, Capture: true, Slot: "queuebox", PoolSize: 10, Replicas: 1,
		DestinationOf: func(topic string) string {
			if topic == "order.created" || topic == "order.paid" {
				return "billing"
			}
			return ""
		}}
}

// find returns the checks whose name starts with prefix.
func find(checks []doctor.Check, prefix string) []doctor.Check {
	var out []doctor.Check
	for _, c := range checks {
		if len(c.Name) >= len(prefix) && c.Name[:len(prefix)] == prefix {
			out = append(out, c)
		}
	}
	return out
}

func TestHealthyIsOK(t *testing.T) {
	t.Parallel()
	checks := doctor.Run(context.Background(), healthy(), options())
	require.Equal(t, 0, doctor.Code(checks), "%+v", checks)
	for _, c := range checks {
		require.Equal(t, doctor.OK, c.Status, "%+v", c)
	}
	require.Contains(t, find(checks, "connections")[0].Detail, "10 × 1 replica (--replicas) = 10 of 97")
}

// TestCountsAgreeWithTheirNumber: one of a thing is never "1 rows".
func TestCountsAgreeWithTheirNumber(t *testing.T) {
	t.Parallel()
	f := healthy()
	f.tables[0].DeadRows, f.tables[0].LiveRows = 1, 1
	checks := doctor.Run(context.Background(), f, options())
	require.Contains(t, find(checks, `vacuum outbox`)[0].Detail, "1 dead and 1 live row versions")

	one := queuebox.PartitionReport{Table: queuebox.TableOutbox, Partitions: 1, Ahead: time.Hour}
	checks = find(doctor.Run(context.Background(), partitioned{healthy(), []queuebox.PartitionReport{one}}, options()), "partitions")
	require.Equal(t, "1 partition, reaching 1h0m0s ahead; the default partition is empty", checks[0].Detail)
}

func TestEachProblem(t *testing.T) {
	t.Parallel()
	old := 10 * time.Minute
	for _, tc := range []struct {
		name   string
		change func(*fake, *doctor.Options)
		check  string
		want   doctor.Status
		detail string
	}{
		{"no database", func(f *fake, _ *doctor.Options) { f.ping = errors.New("connection refused") },
			"database", doctor.Fail, "connection refused"},
		{"pending migration, database.migrate on", func(f *fake, _ *doctor.Options) {
			f.migrations = append(f.migrations, queuebox.MigrationStatus{Version: 3, State: queuebox.MigrationPending})
		}, "migrations", doctor.Warn, "pending: V3"},
		{"pending migration, database.migrate off", func(f *fake, o *doctor.Options) {
			o.Migrate = false
			f.migrations = append(f.migrations, queuebox.MigrationStatus{Version: 3, State: queuebox.MigrationPending})
		}, "migrations", doctor.Fail, "pending: V3"},
		{"failed migration", func(f *fake, _ *doctor.Options) { f.migrations[1].State = queuebox.MigrationFailed },
			"migrations", doctor.Fail, "V2"},
		{"checksum mismatch", func(f *fake, _ *doctor.Options) { f.migrations[0].State = queuebox.MigrationMismatch },
			"migrations", doctor.Warn, "another checksum"},
		{"missing index", func(f *fake, _ *doctor.Options) {
			f.missing = []string{"the inbox table inbox has no index on (a, b). Add it: CREATE INDEX x ON inbox (a, b);"}
		}, "indexes", doctor.Warn, "no index on (a, b)"},
		{"wal_level", func(f *fake, _ *doctor.Options) { f.capture.WALLevel = "replica" }, "wal_level", doctor.Fail, "replica"},
		{"no slot", func(f *fake, _ *doctor.Options) { f.capture.SlotExists = false }, "slot", doctor.Warn, "does not exist"},
		{"slot lag", func(f *fake, _ *doctor.Options) { f.capture.RetainedBytes = 2 << 30 }, "slot", doctor.Warn, "2048 MiB"},
		{"slot unread", func(f *fake, _ *doctor.Options) { f.capture.SlotActive = false }, "slot", doctor.Warn, "not read"},
		{"capture off", func(f *fake, o *doctor.Options) { o.Capture = false; f.capture.WALLevel = "minimal" },
			"capture", doctor.Skip, "off"},
		{"old pending outbox rows fold into their destination", func(f *fake, _ *doctor.Options) {
			f.backlog.PendingByTopic = []queuebox.Group{{Name: "order.created", Count: 2, OldestAge: old}, {Name: "order.paid", Count: 3, OldestAge: time.Second}}
		}, "pending destination billing", doctor.Warn, "5 rows pending, the oldest for 10m0s"},
		{"unrouted pending rows", func(f *fake, _ *doctor.Options) {
			f.backlog.PendingByTopic = []queuebox.Group{{Name: "x", Count: 1, OldestAge: time.Second}}
		}, "pending destination (no route)", doctor.OK, "1 row pending"},
		{"old pending inbox rows", func(f *fake, _ *doctor.Options) {
			f.backlog.PendingBySource = []queuebox.Group{{Name: "stripe", Count: 1, OldestAge: old}}
		}, "pending source stripe", doctor.Warn, "over 5m0s"},
		{"dead outbox rows", func(f *fake, _ *doctor.Options) {
			f.backlog.DeadByTopic = []queuebox.Group{{Name: "order.created", Count: 4}}
		}, "dead destination billing", doctor.Warn, "4 rows dead"},
		{"dead inbox rows", func(f *fake, _ *doctor.Options) {
			f.backlog.DeadBySource = []queuebox.Group{{Name: "stripe", Count: 1}}
		}, "dead source stripe", doctor.Warn, "1 row dead"},
		{"dead tuples", func(f *fake, _ *doctor.Options) { f.tables[0].DeadRows = 200_000 },
			"vacuum outbox", doctor.Warn, "200000 dead"},
		{"autovacuum off", func(f *fake, _ *doctor.Options) { f.tables[1].AutovacuumOn = false },
			"vacuum inbox", doctor.Warn, "autovacuum is off"},
		{"no table statistics on SQL Server", func(f *fake, _ *doctor.Options) {
			f.tablesErr = fmt.Errorf("no autovacuum: %w", queuebox.ErrNotSupported)
		}, "vacuum", doctor.Skip, "no autovacuum"},
		{"old transaction", func(f *fake, _ *doctor.Options) {
			f.tx = &queuebox.OpenTransaction{PID: 42, Age: old, State: "idle in transaction", Query: "SELECT 1"}
		}, "open transactions", doctor.Warn, "session 42"},
		{"young transaction", func(f *fake, _ *doctor.Options) {
			f.tx = &queuebox.OpenTransaction{PID: 42, Age: time.Second}
		}, "open transactions", doctor.OK, "1s old"},
		{"pool near the limit", func(_ *fake, o *doctor.Options) { o.Replicas = 8 }, "connections", doctor.Warn, "80 of 97"},
		{"pool over the limit", func(_ *fake, o *doctor.Options) { o.Replicas = 10 }, "connections", doctor.Fail, "100 of 97"},
		{"unreadable migrations", func(f *fake, _ *doctor.Options) { f.migrateErrs = errors.New("permission denied") },
			"migrations", doctor.Fail, "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, o := healthy(), options()
			tc.change(f, &o)
			checks := doctor.Run(context.Background(), f, o)
			got := find(checks, tc.check)
			require.NotEmpty(t, got, "no check %q in %+v", tc.check, checks)
			require.Equal(t, tc.want, got[0].Status, "%+v", got[0])
			require.Contains(t, got[0].Detail, tc.detail)
			if tc.want == doctor.Warn || tc.want == doctor.Fail {
				require.NotEmpty(t, got[0].Fix, "a problem names its fix")
			}
			wantCode := map[doctor.Status]int{doctor.OK: 0, doctor.Skip: 0, doctor.Warn: 1, doctor.Fail: 2}[tc.want]
			require.Equal(t, wantCode, doctor.Code(checks), "%+v", checks)
		})
	}
}

// TestDeadTopicsSumPerDestination: dead rows of 20,000 topics, which the
// senders choose, give one line per destination, not one per topic.
func TestDeadTopicsSumPerDestination(t *testing.T) {
	t.Parallel()
	f := healthy()
	f.backlog.DeadByTopic = []queuebox.Group{{Name: "order.created", Count: 2}, {Name: "order.paid", Count: 3}}
	for i := range 20_000 {
		f.backlog.DeadByTopic = append(f.backlog.DeadByTopic, queuebox.Group{Name: fmt.Sprintf("junk.%d", i), Count: 1})
	}
	checks := doctor.Run(context.Background(), f, options())
	dead := find(checks, "dead destination")
	require.Len(t, dead, 2, "%+v", dead)
	require.Equal(t, "dead destination (no route)", dead[0].Name)
	require.Contains(t, dead[0].Detail, "20000 rows dead")
	require.Contains(t, dead[0].Fix, "queuebox dead list --state dead)")
	require.Equal(t, "dead destination billing", dead[1].Name)
	require.Contains(t, dead[1].Detail, "5 rows dead")
	require.Contains(t, dead[1].Fix, "queuebox dead list --state dead --destination billing")
	require.Empty(t, find(checks, "dead topic"))
}

// partitioned is a healthy database whose tables are partitioned.
type partitioned struct {
	*fake
	reports []queuebox.PartitionReport
}

func (p partitioned) Partitions(context.Context) ([]queuebox.PartitionReport, error) {
	return p.reports, nil
}

func TestPartitionChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	require.Empty(t, find(doctor.Run(ctx, healthy(), options()), "partitions"), "no partitions, no check")

	good := queuebox.PartitionReport{Table: queuebox.TableOutbox, Partitions: 5, Ahead: 72 * time.Hour}
	checks := find(doctor.Run(ctx, partitioned{healthy(), []queuebox.PartitionReport{good}}, options()), "partitions")
	require.Len(t, checks, 1)
	require.Equal(t, doctor.OK, checks[0].Status)
	require.Equal(t, "5 partitions, reaching 72h0m0s ahead; the default partition is empty", checks[0].Detail)

	bad := queuebox.PartitionReport{Table: queuebox.TableInbox, Partitions: 5, Ahead: 72 * time.Hour, DefaultRows: 3,
		Live: []queuebox.LivePartition{
			{Name: "inbox_p20250101_0000", Ended: 10 * 24 * time.Hour, Rows: 2},
			{Name: "inbox_p20250109_0000", Ended: time.Hour, Rows: 7},
		}}
	opts := options()
	opts.RetentionAge = map[queuebox.Table]time.Duration{queuebox.TableInbox: 7 * 24 * time.Hour}
	checks = find(doctor.Run(ctx, partitioned{healthy(), []queuebox.PartitionReport{bad}}, opts), "partitions")
	require.Len(t, checks, 1)
	require.Equal(t, doctor.Warn, checks[0].Status)
	require.Contains(t, checks[0].Detail, "the default partition inbox_default holds 3 rows")
	require.Contains(t, checks[0].Detail, "retention keeps inbox_p20250101_0000 (2 pending or processing rows, ended 240h0m0s ago) whole")
	require.NotContains(t, checks[0].Detail, "inbox_p20250109_0000", "a partition younger than the max age is not kept by retention")
	require.Contains(t, checks[0].Fix, "partitions-inbox")
}

// TestFanOutCountsPerDestination: the rows of a fan-out topic routed to
// its second destination count there, not under the route's first
// destination; a row not routed yet still counts under the first.
func TestFanOutCountsPerDestination(t *testing.T) {
	t.Parallel()
	f := healthy()
	f.backlog.PendingByTopic = []queuebox.Group{
		{Name: "order.created", Destination: "billing", Count: 2, OldestAge: time.Minute},
		{Name: "order.created", Destination: "audit", Count: 7, OldestAge: time.Hour},
		{Name: "order.created", Count: 1, OldestAge: time.Second},
	}
	f.backlog.DeadByTopic = []queuebox.Group{{Name: "order.created", Destination: "audit", Count: 4}}
	checks := doctor.Run(context.Background(), f, options())

	pending := find(checks, "pending destination")
	require.Len(t, pending, 2, "%+v", pending)
	require.Equal(t, "pending destination audit", pending[0].Name, "the oldest first")
	require.Contains(t, pending[0].Detail, "7 rows pending")
	require.Equal(t, doctor.Warn, pending[0].Status)
	require.Equal(t, "pending destination billing", pending[1].Name)
	require.Contains(t, pending[1].Detail, "3 rows pending", "billing's own rows and the unrouted one")

	dead := find(checks, "dead destination")
	require.Len(t, dead, 1, "%+v", dead)
	require.Equal(t, "dead destination audit", dead[0].Name)
	require.Contains(t, dead[0].Fix, "--destination audit")
}
