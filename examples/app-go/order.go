package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Order is the business row the example writes.
type Order struct {
	Customer string
	Amount   int64
}

// ensureOrdersTable creates the example's business table. A real
// application owns its schema through its own migrations; the outbox
// table comes from QueueBox's.
func ensureOrdersTable(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS orders (
		id BIGSERIAL PRIMARY KEY,
		customer TEXT NOT NULL,
		amount BIGINT NOT NULL,
		created_at TIMESTAMPTZ NOT NULL DEFAULT now())`)
	if err != nil {
		return fmt.Errorf("create orders table: %w", err)
	}
	return nil
}

// PlaceOrder inserts o into orders and one outbox row with topic, keyed by
// the customer, in one transaction, and returns the order id. Both rows
// commit or neither does: an error from either insert rolls the order back
// with its event, so no event describes an order that does not exist and
// no order lacks its event. The row is written once whatever the number
// of receivers: QueueBox's routes decide where it goes, and a route with
// several destinations delivers it to each (see examples/http-fanout).
func PlaceOrder(ctx context.Context, db *sql.DB, o Order, topic string) (id int64, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	// Rollback after a successful Commit is a no-op that returns
	// sql.ErrTxDone, so this is safe on every path.
	defer func() { _ = tx.Rollback() }()

	err = tx.QueryRowContext(ctx,
		`INSERT INTO orders (customer, amount) VALUES ($1, $2) RETURNING id`,
		o.Customer, o.Amount).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert order: %w", err)
	}
	payload, err := json.Marshal(map[string]any{"orderId": id, "customer": o.Customer, "amount": o.Amount})
	if err != nil {
		return 0, fmt.Errorf("encode payload: %w", err)
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO outbox (topic, key, payload) VALUES ($1, $2, $3::jsonb)`,
		topic, o.Customer, string(payload))
	if err != nil {
		return 0, fmt.Errorf("insert outbox row %q: %w", topic, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return id, nil
}
