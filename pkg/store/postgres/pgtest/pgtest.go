// Package pgtest gives each test its own PostgreSQL schema on the local
// server, so tests run in parallel without seeing each other's rows.
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultPostgresURL is the local server the tests use when
// QUEUEBOX_TEST_POSTGRES_URL is unset or empty.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Env holds the test settings, read from QUEUEBOX_TEST_* variables.
type Env struct {
	// PostgresURL is QUEUEBOX_TEST_POSTGRES_URL, or DefaultPostgresURL.
	PostgresURL string
}

// LoadEnv reads the test settings from the process environment.
func LoadEnv(t testing.TB) Env {
	t.Helper()
	u := strings.TrimSpace(os.Getenv("QUEUEBOX_TEST_POSTGRES_URL"))
	if u == "" {
		u = DefaultPostgresURL
	}
	return Env{PostgresURL: u}
}

// Schema is a fresh schema that lives until the test ends.
type Schema struct {
	Name string
	// URL connects with the schema first on the search path.
	URL string
	// BaseURL is the server URL without the search path.
	BaseURL string
}

// NewSchema creates an empty schema and drops it when the test ends.
func NewSchema(t testing.TB) Schema {
	t.Helper()
	env := LoadEnv(t)
	name := fmt.Sprintf("qbt_%d_%06d", time.Now().UnixNano()%1e9, rand.IntN(1e6))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, env.PostgresURL)
	if err != nil {
		t.Fatalf("connect to the test PostgreSQL (QUEUEBOX_TEST_POSTGRES_URL): %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, env.PostgresURL)
		if err != nil {
			t.Logf("drop schema %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", name, err)
		}
	})
	return Schema{Name: name, URL: withSearchPath(t, env.PostgresURL, name), BaseURL: env.PostgresURL}
}

func withSearchPath(t testing.TB, raw, schema string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("QUEUEBOX_TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Connect opens a single connection on the schema; closed at test end.
func (s Schema) Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}
