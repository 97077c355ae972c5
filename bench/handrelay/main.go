// Command handrelay is the outbox relay a competent team writes by hand
// in an afternoon, kept in the bench as the yardstick of queuebox-deliver
// (issue 42). It uses no QueueBox code: pgx, net/http and the outbox
// table, nothing else.
//
//	handrelay -db URL -url http://host:port/path [-workers 16] [-batch 100] [-poll 100ms]
//
// One loop per process, each turn one transaction:
//
//	BEGIN
//	SELECT … FROM outbox WHERE state = 'pending' AND scheduled_at <= now()
//	  ORDER BY sequence LIMIT 100 FOR UPDATE SKIP LOCKED
//	POST every row from 16 goroutines over one shared http.Client
//	UPDATE outbox SET state = 'sent' … WHERE id = ANY($1)   -- the 2xx ones
//	COMMIT
//
// What it leaves out is the point of the comparison: no per-key order (two
// rows of one key go out in parallel, and two processes interleave them),
// no lease (the row lock is the claim, held across the HTTP calls; a
// crashed process's rows come back when its transaction aborts), no
// attempt count, backoff or dead letter (a failed row stays pending and is
// picked again on the next turn), no routing (every row goes to -url).
//
// It runs until SIGTERM or SIGINT, polling -poll apart while the outbox
// holds nothing due, and exits 0 after the turn in progress.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() { os.Exit(run()) }

func run() int {
	dbURL := flag.String("db", "", "PostgreSQL URL of the database holding the outbox table")
	target := flag.String("url", "", "the URL every row is POSTed to")
	workers := flag.Int("workers", 16, "concurrent POSTs per batch")
	batch := flag.Int("batch", 100, "rows locked per transaction")
	poll := flag.Duration("poll", 100*time.Millisecond, "wait between turns while nothing is due")
	flag.Parse()
	if *dbURL == "" || *target == "" || *workers < 1 || *batch < 1 || *poll <= 0 {
		fmt.Fprintln(os.Stderr, "handrelay: -db and -url are required; -workers, -batch and -poll must be positive")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	conn, err := pgx.Connect(ctx, *dbURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "handrelay: connect:", err)
		return 1
	}
	defer conn.Close(context.WithoutCancel(ctx))
	r := newRelay(conn, *target, *workers, *batch)
	for ctx.Err() == nil {
		// A signal lets the turn in progress finish: its rows are sent,
		// so its UPDATE should commit.
		n, err := r.turn(context.WithoutCancel(ctx))
		if err != nil {
			fmt.Fprintln(os.Stderr, "handrelay:", err)
			return 1
		}
		if n > 0 {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(*poll):
		}
	}
	return 0
}
