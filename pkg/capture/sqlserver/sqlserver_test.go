package sqlserver

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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

// fakeDB answers by the first words of a statement and records calls.
type fakeDB struct {
	answers map[string][]any // statement name -> scanned values; nil value: ErrNoRows
	calls   []string
}

func (f *fakeDB) name(query string) string {
	for _, n := range []string{"cdc_database_enabled", "cdc_table_enabled", "cdc_max_lsn", "cdc_min_lsn", "cdc_inserts", "wake_bump", "wake_read", "wake_table"} {
		s, _ := Statement(n, "dbo_outbox")
		if s == query {
			return n
		}
	}
	return "unknown"
}

func (f *fakeDB) QueryRow(_ context.Context, query string, _ []any, dest ...any) error {
	n := f.name(query)
	f.calls = append(f.calls, n)
	v, ok := f.answers[n]
	if !ok || v == nil {
		return ErrNoRows
	}
	for i := range dest {
		reflect.ValueOf(dest[i]).Elem().Set(reflect.ValueOf(v[i]))
	}
	return nil
}

func (f *fakeDB) Exec(_ context.Context, query string, _ ...any) error {
	f.calls = append(f.calls, f.name(query))
	return nil
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answers map[string][]any
		want    string
	}{
		{"database off", map[string][]any{"cdc_database_enabled": {0}}, "sys.sp_cdc_enable_db"},
		{"no such database row", map[string][]any{}, "not enabled on this database"},
		{"table missing", map[string][]any{"cdc_database_enabled": {1}}, "dbo.outbox does not exist"},
		{"table off", map[string][]any{"cdc_database_enabled": {1}, "cdc_table_enabled": {0}}, "sys.sp_cdc_enable_table @source_schema = N'dbo'"},
		{"both on", map[string][]any{"cdc_database_enabled": {1}, "cdc_table_enabled": {1}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := &fakeDB{answers: tc.answers}
			c, err := New(db, "dbo", "outbox")
			require.NoError(t, err)
			err = c.Check(context.Background())
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, "wake_table", db.calls[len(db.calls)-1], "the wake row's table is ensured")
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestPollWakesOnInsertsFromTheStoredLSN(t *testing.T) {
	t.Parallel()
	lsn := func(b byte) []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, b} }
	db := &fakeDB{answers: map[string][]any{"cdc_max_lsn": {lsn(9)}, "cdc_min_lsn": {lsn(1)}, "cdc_inserts": {int64(3)}}}
	c, err := New(db, "dbo", "outbox")
	require.NoError(t, err)

	next, n, err := c.Poll(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, lsn(9), next)
	require.EqualValues(t, 3, n)
	require.Equal(t, []string{"cdc_max_lsn", "cdc_min_lsn", "cdc_inserts", "wake_bump"}, db.calls, "a first start reads from the lowest LSN")

	db.calls = nil
	next, n, err = c.Poll(context.Background(), next)
	require.NoError(t, err)
	require.Equal(t, lsn(9), next)
	require.Zero(t, n)
	require.Equal(t, []string{"cdc_max_lsn"}, db.calls, "nothing new: no change read, no wake")

	db.answers["cdc_max_lsn"], db.answers["cdc_inserts"] = []any{lsn(12)}, []any{int64(0)}
	db.calls = nil
	_, _, err = c.Poll(context.Background(), next)
	require.NoError(t, err)
	require.Equal(t, []string{"cdc_max_lsn", "cdc_inserts"}, db.calls, "updates only: no wake")
}

func TestWakeReader(t *testing.T) {
	t.Parallel()
	db := &fakeDB{answers: map[string][]any{}}
	w, err := NewWakeReader(db)
	require.NoError(t, err)
	changed, err := w.Changed(context.Background())
	require.NoError(t, err)
	require.True(t, changed, "the first read claims once")
	changed, _ = w.Changed(context.Background())
	require.False(t, changed)
	db.answers["wake_read"] = []any{int64(4)}
	changed, _ = w.Changed(context.Background())
	require.True(t, changed)
	require.True(t, strings.Contains(w.sql, "WHERE channel = @p1"))
}
