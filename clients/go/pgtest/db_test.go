package pgtest_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// testServer is the local PostgreSQL of the tests.
func testServer() string {
	if u := os.Getenv("QUEUEBOX_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// migrated gives the test a fresh schema with the bundled migrations of
// ../../../migrations/postgres applied in version order, and a pool on it
// with that schema first on the search path. The schema is dropped when
// the test ends.
func migrated(t testing.TB) *sql.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := fmt.Sprintf("qbgo_%d_%06d", time.Now().UnixNano()%1e9, rand.IntN(1e6))
	admin, err := sql.Open("pgx", testServer())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema %s (QUEUEBOX_TEST_POSTGRES_URL): %v", name, err)
	}
	t.Cleanup(func() {
		c, err := sql.Open("pgx", testServer())
		if err != nil {
			return
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.ExecContext(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", name, err)
		}
	})
	u, err := url.Parse(testServer())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	// A test that reads pg_stat_activity finds its own sessions by it.
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(24)
	t.Cleanup(func() { _ = db.Close() })
	for _, f := range migrationFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, string(text)); err != nil {
			t.Fatalf("apply %s: %v", filepath.Base(f), err)
		}
	}
	return db
}

// migrationFiles lists V<n>__*.sql in version order.
func migrationFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../../migrations/postgres/V*__*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled migrations in ../../../migrations/postgres: %v", err)
	}
	version := func(f string) int {
		v, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(filepath.Base(f), "__", 2)[0], "V"))
		if err != nil {
			t.Fatalf("migration %s: %v", f, err)
		}
		return v
	}
	slices.SortFunc(files, func(a, b string) int { return version(a) - version(b) })
	return files
}

func mustExec(t testing.TB, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func queryInt(t testing.TB, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// insertPull stores one pull row and returns its id.
func insertPull(t testing.TB, db *sql.DB, source, key string, aggregate any, payload string) string {
	t.Helper()
	var id string
	err := db.QueryRowContext(context.Background(), `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption)
		VALUES ($1, $2, $3, $4, 'pull') RETURNING id::text`, source, key, aggregate, payload).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
