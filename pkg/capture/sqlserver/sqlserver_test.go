package sqlserver

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestStatementsGolden pins the SQL text of every statement, rendered for
// the default capture instance dbo_outbox.
func TestStatementsGolden(t *testing.T) {
	t.Parallel()
	c, err := New(&fakeDB{}, "dbo", "outbox")
	require.NoError(t, err)
	for name, sql := range c.sql {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(sql), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(want), sql)
		})
	}
}

func TestNewRefusesNonIdentifiers(t *testing.T) {
	t.Parallel()
	_, err := New(&fakeDB{}, "dbo", "outbox; DROP TABLE x")
	require.ErrorContains(t, err, "must be SQL identifiers")
}

// fakeDB answers by statement name and records calls. It is safe for
// concurrent use: a Runner calls it from its goroutine while a test reads.
type fakeDB struct {
	mu      sync.Mutex
	answers map[string][]any // statement name -> scanned values; nil value: ErrNoRows
	fail    map[string]error // statement name -> error
	calls   []string
	args    map[string][]any // statement name -> the arguments of its last call
}

func (f *fakeDB) name(query string) string {
	for _, n := range statementNames {
		s, _ := Statement(n, "dbo_outbox")
		if s == query {
			return n
		}
	}
	return "unknown"
}

func (f *fakeDB) record(query string, args []any) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.name(query)
	f.calls = append(f.calls, n)
	if f.args == nil {
		f.args = map[string][]any{}
	}
	f.args[n] = args
	return n, f.fail[n]
}

func (f *fakeDB) QueryRow(_ context.Context, query string, args []any, dest ...any) error {
	n, err := f.record(query, args)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.answers[n]
	if !ok || v == nil {
		return ErrNoRows
	}
	for i := range dest {
		if v[i] == nil {
			continue
		}
		reflect.ValueOf(dest[i]).Elem().Set(reflect.ValueOf(v[i]))
	}
	return nil
}

func (f *fakeDB) Exec(_ context.Context, query string, args ...any) error {
	n, err := f.record(query, args)
	if err == nil && n == "capture_state_insert" {
		// The row is there from now on, as in a database.
		f.set("capture_state_find", args[1], args[2])
	}
	return err
}

// set replaces one answer while a Runner may read.
func (f *fakeDB) set(name string, v ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[name] = v
}

// count returns how often the statement ran.
func (f *fakeDB) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == name {
			n++
		}
	}
	return n
}

func TestCheck(t *testing.T) {
	t.Parallel()
	on := map[string][]any{"cdc_database_enabled": {1}, "cdc_table_enabled": {1}, "cdc_agent_running": {2}}
	with := func(k string, v []any) map[string][]any {
		m := map[string][]any{}
		for a, b := range on {
			m[a] = b
		}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		name    string
		answers map[string][]any
		kind    capture.FaultKind
		want    string
	}{
		{"database off", with("cdc_database_enabled", []any{0}), FaultDatabaseNotEnabled, "run EXEC sys.sp_cdc_enable_db in it, then restart"},
		{"no such database row", with("cdc_database_enabled", nil), FaultDatabaseNotEnabled, "not enabled on this database"},
		{"table missing", with("cdc_table_enabled", nil), FaultTableMissing, "dbo.outbox does not exist"},
		{"table off", with("cdc_table_enabled", []any{0}), FaultTableNotEnabled, "sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'outbox'"},
		{"agent stopped", with("cdc_agent_running", []any{0}), FaultAgentStopped, "start the SQL Server Agent"},
		{"all on", on, "", ""},
		{"agent not visible", with("cdc_agent_running", []any{-1}), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := &fakeDB{answers: tc.answers}
			c, err := New(db, "dbo", "outbox")
			require.NoError(t, err)
			unknown, err := c.Check(context.Background())
			if tc.kind == "" {
				require.NoError(t, err)
				require.Equal(t, tc.name == "agent not visible", unknown)
				require.Equal(t, "wake_table", db.calls[len(db.calls)-1], "the wake row's table is ensured")
				return
			}
			var fault *capture.Fault
			require.ErrorAs(t, err, &fault)
			require.Equal(t, tc.kind, fault.Kind)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, db.calls, "wake_table")
		})
	}
	t.Run("a failed query is retried, not a fault", func(t *testing.T) {
		t.Parallel()
		db := &fakeDB{answers: on, fail: map[string]error{"cdc_agent_running": errors.New("boom")}}
		c, err := New(db, "dbo", "outbox")
		require.NoError(t, err)
		_, err = c.Check(context.Background())
		var fault *capture.Fault
		require.False(t, errors.As(err, &fault))
		require.ErrorContains(t, err, "check the SQL Server Agent: boom")
	})
}
