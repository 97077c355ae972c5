package chaos

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
	"github.com/jackc/pgx/v5/pgxpool"
)

// SharedServer is the maintenance URL of the PostgreSQL server that the
// tests share. The suite only creates and drops its own databases there;
// it never restarts that server.
func SharedServer() string {
	if u := os.Getenv("QUEUEBOX_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Database is one database that a scenario creates and drops.
type Database struct {
	Name string
	// URL is the pgx form, for the suite's own sessions; JDBC is the
	// database.url form that the binaries read.
	URL, JDBC string
	Pool      *pgxpool.Pool
}

// NewDatabase creates an empty database on the server of serverURL (a
// maintenance database URL) and drops it when the test ends.
func NewDatabase(t testing.TB, serverURL string) *Database {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("qbchaos_%d_%04d", time.Now().UnixNano()%1e9, rand.IntN(1e4))
	admin, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatalf("connect to %s: %v", serverURL, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	d := &Database{Name: name, URL: u.String(), JDBC: fmt.Sprintf("jdbc:postgresql://%s/%s", u.Host, name)}
	cfg, err := pgxpool.ParseConfig(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	if d.Pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Pool.Close()
		if c, err := pgx.Connect(context.Background(), serverURL); err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	return d
}

// Env is the database configuration of a binary. Every process gets a
// small pool: a scenario runs up to eight of them on one server.
func (d *Database) Env(appName string) map[string]string {
	sep := "?"
	if strings.Contains(d.JDBC, "?") {
		sep = "&"
	}
	return map[string]string{
		"QUEUEBOX_DATABASE_URL":      d.JDBC + sep + "ApplicationName=" + appName,
		"QUEUEBOX_DATABASE_USERNAME": "postgres",
		"QUEUEBOX_DATABASE_PASSWORD": "unused",
		"QUEUEBOX_DATABASE_POOLSIZE": "4",
	}
}

// Count runs a query that returns one integer, and fails the test on an
// error.
func (d *Database) Count(t testing.TB, query string, args ...any) int {
	t.Helper()
	n, err := d.TryCount(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TryCount is Count that returns the error, for polls that run while the
// server may be restarting.
func (d *Database) TryCount(query string, args ...any) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	err := d.Pool.QueryRow(ctx, query, args...).Scan(&n)
	return n, err
}
