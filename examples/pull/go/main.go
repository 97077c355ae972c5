// Command orders-worker is the pull worker of the "Receive a webhook"
// tutorial: it takes the messages of the pull source orders, stores each
// order in the orders table, and completes the message in the same
// transaction. DATABASE_URL overrides the tutorial's database.
package main

import (
	"context"
	"database/sql"
	"log"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/jackc/pgx/v5/stdlib"

	queuebox "github.com/alternayte/queuebox/clients/go"
)

func main() {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		url = "postgres://queuebox:queuebox@localhost:5432/queuebox?sslmode=disable"
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	worker, err := queuebox.NewInboxWorker(db, queuebox.Options{Source: "orders"})
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	log.Println("Waiting for messages of the source 'orders'. Press Ctrl+C to stop.")
	err = worker.Run(ctx, func(ctx context.Context, message queuebox.Message, tx *sql.Tx) error {
		var order struct {
			ID    string `json:"id"`
			Total int    `json:"total"`
		}
		if err := message.UnmarshalPayload(&order); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO orders (id, total) VALUES ($1, $2)", order.ID, order.Total); err != nil {
			return err
		}
		log.Printf("Stored the order %s.", message.IdempotencyKey)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
