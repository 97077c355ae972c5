// Package pgtest gives each test its own PostgreSQL schema on the local
// server, so tests run in parallel without seeing each other's rows.
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/kelseyhightower/envconfig"
)

// Env holds the test settings, read with envconfig from QUEUEBOX_TEST_*.
type Env struct {
	PostgresURL string `envconfig:"POSTGRES_URL" default:"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"`
}

// LoadEnv reads the test settings.
func LoadEnv(t testing.TB) Env {
	t.Helper()
	var e Env
	if err := envconfig.Process("queuebox_test", &e); err != nil {
		t.Fatalf("read QUEUEBOX_TEST_ settings: %v", err)
	}
	return e
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
