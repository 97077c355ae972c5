// Command app-go is the application side of QueueBox: it places an order
// by writing the order row and one outbox row per topic in a single
// database transaction, so the events exist exactly when the order does.
// QueueBox then delivers the outbox rows; the program never talks to a
// destination itself.
//
//	go run . -database-url postgres://postgres@127.0.0.1:5432/shop -customer cust-42 -amount 4200
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

func main() {
	url := flag.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL of the database QueueBox migrated (DATABASE_URL)")
	customer := flag.String("customer", "cust-42", "customer of the order; also the outbox key, so one customer's events stay in order")
	amount := flag.Int64("amount", 4200, "order amount in cents")
	topics := flag.String("topics", "analytics.order.placed,audit.order.placed", "comma-separated topics: one outbox row each")
	flag.Parse()
	if *url == "" {
		log.Fatal("app-go: set -database-url or DATABASE_URL")
	}

	db, err := sql.Open("pgx", *url)
	if err != nil {
		log.Fatalf("app-go: %v", err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ensureOrdersTable(ctx, db); err != nil {
		log.Fatalf("app-go: %v", err)
	}
	id, err := PlaceOrder(ctx, db, Order{Customer: *customer, Amount: *amount}, strings.Split(*topics, ","))
	if err != nil {
		log.Fatalf("app-go: %v", err)
	}
	fmt.Printf("order %d placed with %d outbox row(s)\n", id, len(strings.Split(*topics, ",")))
}
