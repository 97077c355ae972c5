package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// selectDue locks the next due rows in outbox order, skipping those
// another process holds. With the partial index on (sequence) WHERE
// state = 'pending' it reads the first rows of that index and stops.
const selectDue = `
SELECT id::text, topic, coalesce(key, ''), payload::text, attempt
FROM outbox
WHERE state = 'pending' AND scheduled_at <= now()
ORDER BY sequence
LIMIT $1
FOR UPDATE SKIP LOCKED`

// markSent records the rows the receiver took. updated_at is the
// statement's clock, so the bench reads the drain's end from the rows.
const markSent = `UPDATE outbox SET state = 'sent', updated_at = clock_timestamp() WHERE id = ANY($1)`

// row is one locked outbox row, as much of it as a POST needs.
type row struct {
	id, topic, key, payload string
	attempt                 int
}

// relay is one process's loop state: one connection, one HTTP client.
// It is not safe for concurrent turns; the process runs one.
type relay struct {
	conn    *pgx.Conn
	client  *http.Client
	url     string
	workers int
	batch   int
}

func newRelay(conn *pgx.Conn, url string, workers, batch int) *relay {
	return &relay{
		conn: conn, url: url, workers: workers, batch: batch,
		client: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{MaxIdleConns: workers, MaxIdleConnsPerHost: workers},
		},
	}
}

// turn runs one transaction: lock a batch, POST it, mark the 2xx rows
// sent, commit. It returns how many rows it locked (0: nothing due).
func (r *relay) turn(ctx context.Context) (int, error) {
	tx, err := r.conn.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
	rows, err := r.lock(ctx, tx)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	sent := r.postAll(ctx, rows)
	if len(sent) > 0 {
		if _, err := tx.Exec(ctx, markSent, sent); err != nil {
			return 0, fmt.Errorf("mark %d rows sent: %w", len(sent), err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return len(rows), nil
}

func (r *relay) lock(ctx context.Context, tx pgx.Tx) ([]row, error) {
	q, err := tx.Query(ctx, selectDue, r.batch)
	if err != nil {
		return nil, fmt.Errorf("select due rows: %w", err)
	}
	var out []row
	for q.Next() {
		var x row
		if err := q.Scan(&x.id, &x.topic, &x.key, &x.payload, &x.attempt); err != nil {
			q.Close()
			return nil, fmt.Errorf("read due row: %w", err)
		}
		out = append(out, x)
	}
	return out, q.Err()
}

// postAll POSTs the rows from r.workers goroutines and returns the ids
// the receiver answered 2xx; the others stay pending for a later turn.
func (r *relay) postAll(ctx context.Context, rows []row) []string {
	ok := make([]bool, len(rows))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.workers, len(rows)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(rows); i = int(next.Add(1) - 1) {
				ok[i] = r.post(ctx, rows[i]) == nil
			}
		}()
	}
	wg.Wait()
	sent := make([]string, 0, len(rows))
	for i, x := range rows {
		if ok[i] {
			sent = append(sent, x.id)
		}
	}
	return sent
}

// post sends one row with the headers queuebox-deliver sets on an HTTP
// delivery, so the receiver reads the same request either way.
func (r *relay) post(ctx context.Context, x row) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader([]byte(x.payload)))
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "QueueBox")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Message-Id", x.id)
	req.Header.Set("X-Topic", x.topic)
	req.Header.Set("X-Attempt", strconv.Itoa(x.attempt+1))
	if x.key != "" {
		req.Header.Set("X-Message-Key", x.key)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("POST %s: %d", r.url, resp.StatusCode)
	}
	return nil
}
