package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// server is the local PostgreSQL the test creates its database on.
func server() string {
	if u := os.Getenv("QUEUEBOX_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// freshDatabase creates a uniquely named database with the outbox columns
// the program writes and the orders table, and drops it when the test ends.
func freshDatabase(t *testing.T) *sql.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := fmt.Sprintf("qb_appgo_%d_%06d", time.Now().UnixNano()%1e9, rand.IntN(1e6))
	admin, err := sql.Open("pgx", server())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
		_ = admin.Close()
	})
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database (QUEUEBOX_TEST_POSTGRES_URL): %v", err)
	}
	db, err := sql.Open("pgx", strings.Replace(server(), "/postgres?", "/"+name+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	// The columns of QueueBox's outbox that the program writes, with the
	// same types, so an over-long topic fails as it would there.
	_, err = db.ExecContext(ctx, `CREATE TABLE outbox (
		id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
		topic VARCHAR(255) NOT NULL,
		key VARCHAR(255),
		payload JSONB NOT NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := ensureOrdersTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTheOrderAndItsOutboxRowCommitTogether(t *testing.T) {
	db := freshDatabase(t)
	id, err := PlaceOrder(context.Background(), db, Order{Customer: "cust-7", Amount: 990}, "order.placed")
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, db, "SELECT count(*) FROM orders"); got != 1 {
		t.Fatalf("orders: %d rows, want 1", got)
	}
	rows, err := db.Query(`SELECT topic, key, (payload->>'orderId')::bigint FROM outbox ORDER BY topic`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var topic, key string
		var orderID int64
		if err := rows.Scan(&topic, &key, &orderID); err != nil {
			t.Fatal(err)
		}
		if key != "cust-7" || orderID != id {
			t.Errorf("%s: key %q, orderId %d; want cust-7, %d", topic, key, orderID, id)
		}
		got = append(got, topic)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// One row, whatever the number of receivers: the routes fan it out.
	if strings.Join(got, ",") != "order.placed" {
		t.Fatalf("outbox topics %v, want one row of order.placed", got)
	}
}

func TestAFailingOutboxInsertRollsTheOrderBack(t *testing.T) {
	db := freshDatabase(t)
	// The topic is longer than the column allows, so the outbox insert
	// fails after the order was written.
	_, err := PlaceOrder(context.Background(), db, Order{Customer: "cust-8", Amount: 1}, strings.Repeat("x", 300))
	if err == nil {
		t.Fatal("PlaceOrder succeeded with a topic the column cannot hold")
	}
	if got := count(t, db, "SELECT count(*) FROM orders"); got != 0 {
		t.Errorf("orders: %d rows after the failure, want 0", got)
	}
	if got := count(t, db, "SELECT count(*) FROM outbox"); got != 0 {
		t.Errorf("outbox: %d rows after the failure, want 0", got)
	}
}
