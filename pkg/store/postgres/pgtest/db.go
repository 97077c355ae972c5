package pgtest

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// Open opens a pool of poolSize connections on the schema; it closes when
// the test ends.
func (s Schema) Open(t testing.TB, poolSize int) *postgres.DB {
	t.Helper()
	return s.OpenWith(t, poolSize, "")
}

// OpenWith is Open with more URL parameters (run-time settings such as
// "jit=on"), joined to the schema's URL; "" adds none.
func (s Schema) OpenWith(t testing.TB, poolSize int, params string) *postgres.DB {
	t.Helper()
	url := s.URL
	if params != "" {
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		url += sep + params
	}
	db, err := postgres.Open(context.Background(), postgres.Options{
		ConnString: url, DisplayURL: s.Name, PoolSize: poolSize,
		AcquireTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, Logger: Quiet(),
	})
	if err != nil {
		t.Fatalf("open the test schema %s: %v", s.Name, err)
	}
	t.Cleanup(db.Close)
	return db
}

// Migrated gives the test a fresh schema with the bundled migrations
// applied, and a pool on it.
func Migrated(t testing.TB, poolSize int) (Schema, *postgres.DB) {
	t.Helper()
	s := NewSchema(t)
	db := s.Open(t, poolSize)
	if _, err := db.Migrate(context.Background(), Quiet()); err != nil {
		t.Fatalf("migrate the test schema %s: %v", s.Name, err)
	}
	return s, db
}

// Quiet is a logger that drops everything, for tests.
func Quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
