// Command app-go is the application side of QueueBox: it places an order
// by writing the order row and one outbox row in a single database
// transaction, so the event exists exactly when the order does. QueueBox
// then delivers the outbox row to every destination its route names; the
// program never talks to a destination itself, and does not know how many
// there are.
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
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

func main() {
	url := flag.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL of the database QueueBox migrated (DATABASE_URL)")
	customer := flag.String("customer", "cust-42", "customer of the order; also the outbox key, so one customer's events stay in order")
	amount := flag.Int64("amount", 4200, "order amount in cents")
	topic := flag.String("topic", "order.placed", "topic of the outbox row; QueueBox's routes pick its destinations")
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
	id, err := PlaceOrder(ctx, db, Order{Customer: *customer, Amount: *amount}, *topic)
	if err != nil {
		log.Fatalf("app-go: %v", err)
	}
	fmt.Printf("order %d placed with its outbox row (topic %s)\n", id, *topic)
}
