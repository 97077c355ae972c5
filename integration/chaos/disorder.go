package chaos

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Disordered returns, per lane whose first deliveries broke the key's
// order (by rank where RankBy set one), the messages n in the order they
// were first delivered.
func (l *Ledger) Disordered() map[string][]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]int{}
	for ln, ns := range l.order {
		if l.outOfOrder(ln.Key, ns, false) > 0 {
			out[ln.Key+destSuffix(ln.Dest)] = append([]int(nil), ns...)
		}
	}
	return out
}

// ExplainDisorder logs, for each lane whose order broke, its first
// deliveries and every inbox and outbox row of its key in the order the
// relay and deliver take them, so a failure names the hop that
// reordered the key.
func ExplainDisorder(t testing.TB, db *Database, l *Ledger) {
	t.Helper()
	for ln, ns := range l.Disordered() {
		key, _, _ := strings.Cut(ln, " to ")
		t.Logf("key %s delivered first in the order %v", ln, ns)
		logRows(t, db, "inbox of "+key, `SELECT source || ' n=' || (payload->>'n') || ' ' || state || ' created ' ||
			to_char(created_at, 'HH24:MI:SS.US') || ' id ' || id::text
			FROM inbox WHERE aggregate_id = $1 ORDER BY source, created_at, id`, key)
		logRows(t, db, "outbox of "+key, `SELECT 'seq ' || sequence || ' ' || topic || ' n=' || (payload->>'n') || ' ' ||
			state || ' dest ' || destination || ' attempt ' || attempt || ' created ' || to_char(created_at, 'HH24:MI:SS.US') ||
			' updated ' || to_char(updated_at, 'HH24:MI:SS.US')
			FROM outbox WHERE key = $1 ORDER BY sequence`, key)
	}
}

func logRows(t testing.TB, db *Database, what, query string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.Pool.Query(ctx, query, args...)
	if err != nil {
		t.Logf("read the %s: %v", what, err)
		return
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Logf("read the %s: %v", what, err)
			return
		}
		lines = append(lines, s)
	}
	t.Logf("%s:\n  %s", what, strings.Join(lines, "\n  "))
}
