package queuebox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The embedded statements are generated copies of the contract in
// examples/pull/sql (go generate); they must not drift from it. The
// test runs in the repository, where the contract sits beside this module.
func TestEmbeddedSQLMatchesTheContract(t *testing.T) {
	t.Parallel()
	contract, err := filepath.Glob("../../examples/pull/sql/*.sql")
	if err != nil || len(contract) == 0 {
		t.Fatalf("no contract files in ../../examples/pull/sql (err %v): run the test in the repository", err)
	}
	embedded, err := sqlFiles.ReadDir("sql")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range embedded {
		names = append(names, e.Name())
	}
	var want []string
	for _, f := range contract {
		want = append(want, filepath.Base(f))
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sqlFiles.ReadFile("sql/" + filepath.Base(f))
		if err != nil || string(got) != string(text) {
			t.Errorf("sql/%s differs from examples/pull/sql: run go generate in clients/go", filepath.Base(f))
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("embedded %v, contract %v: run go generate in clients/go", names, want)
	}
}

func TestEveryStatementRendersWithItsHeaderParameters(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"claim":    {"source", "batch", "lease_ms", "cand_limit"},
		"renew":    {"id", "token", "lease_ms"},
		"complete": {"id", "token"},
		"retry":    {"id", "token", "delay_ms", "error"},
		"dead":     {"id", "token", "error"},
	}
	for _, d := range []Dialect{DialectPostgreSQL, DialectSQLServer} {
		for name, params := range want {
			st, err := loadStatement(d, DefaultSchema(), name)
			if err != nil {
				t.Fatalf("%s %s: %v", d, name, err)
			}
			got := slices.Clone(st.params)
			slices.Sort(got)
			exp := slices.Clone(params)
			slices.Sort(exp)
			if !slices.Equal(got, exp) {
				t.Errorf("%s %s: parameters %v, want %v", d, name, st.params, params)
			}
			raw, _ := sqlFiles.ReadFile("sql/" + d.file(name))
			marker := ":"
			if d == DialectSQLServer {
				marker = "@"
			}
			for _, p := range params {
				if !strings.Contains(string(raw), "--   "+marker+p+" ") {
					t.Errorf("%s %s: the header comment does not list %s%s", d, name, marker, p)
				}
			}
			if strings.Contains(st.text, "--") {
				t.Errorf("%s %s: a comment survived rendering", d, name)
			}
		}
	}
}

func TestRenderNumbersParametersAndKeepsCastsAndLiterals(t *testing.T) {
	t.Parallel()
	src := "-- :ignored in a comment\nSELECT x::text, ':no', \"source\" FROM inbox WHERE source = :source AND id = CAST(:id AS uuid) OR source = :source /* :c */"
	got, params, err := render(DialectPostgreSQL, src, DefaultSchema().quoted(DialectPostgreSQL))
	if err != nil {
		t.Fatal(err)
	}
	want := `SELECT x::text, ':no', "source" FROM "inbox" WHERE "source" = $1 AND "id" = CAST($2 AS uuid) OR "source" = $1`
	if strings.TrimSpace(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !slices.Equal(params, []string{"source", "id"}) {
		t.Errorf("params %v", params)
	}
}

func TestMappedNamesAreQuotedAndChecked(t *testing.T) {
	t.Parallel()
	s := DefaultSchema()
	s.Table = "qb_inbox"
	s.IdempotencyKey = "dedup_key"
	st, err := loadStatement(DialectSQLServer, s, "claim")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.text, "FROM [qb_inbox]") || !strings.Contains(st.text, "inserted.[dedup_key]") {
		t.Errorf("mapped names missing:\n%s", st.text)
	}
	for _, bad := range []string{"inbox; DROP TABLE x", `in"box`, "in]box", "1inbox", "", "a b", "s.inbox"} {
		m := DefaultSchema()
		m.Table = bad
		if errs := m.validate(); len(errs) == 0 {
			t.Errorf("table %q passed the check", bad)
		}
	}
	dup := DefaultSchema()
	dup.EventType = "source"
	if errs := dup.validate(); len(errs) != 1 {
		t.Errorf("two columns on one name: %v", errs)
	}
}
