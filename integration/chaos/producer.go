package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ProduceOutbox inserts messages outbox rows in batches, spread over keys
// keys in the order of n, and records each committed batch in the ledger.
// With rate above 0 it starts no batch before its share of rate messages a
// second is due; 0 inserts as fast as the database takes them. It runs
// until done and returns the first error it cannot recover from. A batch
// whose commit went unanswered (the server restarted under it) is looked
// up before it is sent again, so each message is inserted once.
func ProduceOutbox(db *Database, ledger *Ledger, messages, keys, rate int) error {
	const batch = 50
	began := time.Now()
	for start := 0; start < messages; start += batch {
		if rate > 0 {
			time.Sleep(time.Until(began.Add(time.Duration(start) * time.Second / time.Duration(rate))))
		}
		var ms []Message
		for n := start; n < min(start+batch, messages); n++ {
			ms = append(ms, Message{ID: fmt.Sprintf("m%d", n), Key: fmt.Sprintf("key-%d", n%keys), N: n})
		}
		if err := insertOnce(db, ms); err != nil {
			return err
		}
		for _, m := range ms {
			ledger.Produced(m)
		}
	}
	return nil
}

// insertOnce inserts one batch, retrying for up to two minutes while the
// database is away.
func insertOnce(db *Database, ms []Message) error {
	payloads := make([]string, len(ms))
	keys := make([]string, len(ms))
	for i, m := range ms {
		b, _ := json.Marshal(m)
		payloads[i], keys[i] = string(b), m.Key
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := db.Pool.Exec(ctx, `
			INSERT INTO outbox (topic, key, payload, max_attempts)
			SELECT 'chaos', k, p::jsonb, 1000
			FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS b(k, p, i) ORDER BY i`, keys, payloads)
		if err != nil {
			var n int
			if qerr := db.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE payload->>'id' = $1`, ms[0].ID).Scan(&n); qerr == nil && n > 0 {
				err = nil // the commit went through; only its answer was lost
			}
		}
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("insert batch from %s: %w", ms[0].ID, err)
		}
		time.Sleep(100 * time.Millisecond) // a retry pace while the server is away
	}
}
