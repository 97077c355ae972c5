// Command handinbox is the webhook inbox a competent team writes by hand,
// kept in the bench as the yardstick of queuebox-ingest (issue 42). It
// uses no QueueBox code: net/http, encoding/json, pgx and the inbox table.
//
//	handinbox -db URL -addr 127.0.0.1:PORT [-pool 20] [-hmac-secret S]
//
// One handler on every path: read the body, take the idempotency key
// (and the event type and aggregate the bench's sources extract) from the
// JSON, INSERT … ON CONFLICT (source, idempotency_key) DO NOTHING in its
// own transaction, answer 202 for a new row and 200 for a duplicate. The
// source is the last path segment (/inbox/bench is source bench). With
// -hmac-secret, the path /inbox/signed also checks X-Signature as
// queuebox-ingest's HMAC source does by default: "sha256=" and the lower
// case hex HMAC-SHA256 of the raw body, compared in constant time.
//
// What it leaves out: no per-source extraction paths or topics, no
// payload or header limits beyond one body cap, no metrics, no group
// commit, no relay or pull consumption of what it stored.
//
// It answers GET /health/live with 200 once its pool is up, and stops on
// SIGTERM or SIGINT, finishing the requests in flight.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() { os.Exit(run()) }

func run() int {
	dbURL := flag.String("db", "", "PostgreSQL URL of the database holding the inbox table")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	pool := flag.Int("pool", 20, "database connections")
	secret := flag.String("hmac-secret", "", "HMAC-SHA256 secret of the source signed; empty: no signed source")
	flag.Parse()
	if *dbURL == "" || *pool < 1 {
		fmt.Fprintln(os.Stderr, "handinbox: -db is required and -pool must be positive")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cfg, err := pgxpool.ParseConfig(*dbURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "handinbox:", err)
		return 2
	}
	cfg.MaxConns = int32(*pool)
	db, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = db.Ping(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "handinbox: connect:", err)
		return 1
	}
	defer db.Close()

	srv := &http.Server{Addr: *addr, Handler: newHandler(db, []byte(*secret)), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	select {
	case err := <-served:
		fmt.Fprintln(os.Stderr, "handinbox:", err)
		return 1
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := errors.Join(srv.Shutdown(shutdownCtx), ignoreClosed(<-served)); err != nil {
		fmt.Fprintln(os.Stderr, "handinbox:", err)
		return 1
	}
	return 0
}

func ignoreClosed(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
