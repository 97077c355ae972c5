package pgtest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// contract reads a PostgreSQL file of examples/pull/sql as another
// language would run it: comments dropped, each :name made $n in order of
// first use. It returns the text and the parameter names.
func contract(t testing.TB, name string) (string, []string) {
	t.Helper()
	raw, err := os.ReadFile("../../../examples/pull/sql/" + name + ".sql")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if i := strings.Index(l, "--"); i >= 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	var params []string
	index := map[string]int{}
	text := regexp.MustCompile(`(^|[^:]):([a-z_]+)`).ReplaceAllStringFunc(strings.Join(lines, "\n"), func(m string) string {
		lead, p := "", m
		if !strings.HasPrefix(m, ":") {
			lead, p = m[:1], m[1:]
		}
		p = p[1:]
		if _, ok := index[p]; !ok {
			params = append(params, p)
			index[p] = len(params)
		}
		return fmt.Sprintf("%s$%d", lead, index[p])
	})
	return text, params
}

// run runs a contract statement with named values.
func bind(t testing.TB, name string, values map[string]any) (string, []any) {
	t.Helper()
	text, params := contract(t, name)
	args := make([]any, len(params))
	for i, p := range params {
		v, ok := values[p]
		if !ok {
			t.Fatalf("%s: no value for %s", name, p)
		}
		args[i] = v
	}
	return text, args
}

type claimedRow struct{ id, key, token string }

func claimSQL(t testing.TB, db *sql.DB, source string, batch int) []claimedRow {
	t.Helper()
	text, args := bind(t, "claim", map[string]any{"source": source, "batch": batch, "lease_ms": 60_000,
		"cand_limit": min(max(3*batch, 50), 500)})
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(text, args...)
	if err != nil {
		t.Fatal(err)
	}
	var out []claimedRow
	for rows.Next() {
		var r claimedRow
		var src, payload, headers string
		var agg, event, corr sql.NullString
		var attempt int
		if err := rows.Scan(&r.id, &src, &r.key, &agg, &event, &payload, &headers, &attempt, &corr, &r.token); err != nil {
			t.Fatal(err)
		}
		if src != source || !json.Valid([]byte(payload)) || !json.Valid([]byte(headers)) {
			t.Errorf("claimed row %+v: source %s payload %s headers %s", r, src, payload, headers)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return out
}

func fencedSQL(t testing.TB, db *sql.DB, name string, values map[string]any) int64 {
	t.Helper()
	text, args := bind(t, name, values)
	res, err := db.ExecContext(context.Background(), text, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	n, _ := res.RowsAffected()
	return n
}

func keys(rows []claimedRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.key)
	}
	return out
}

func TestTheClaimTakesOneDueRowPerAggregateInOrder(t *testing.T) {
	t.Parallel()
	db := migrated(t)
	ins := func(source, key string, agg any, extra string) {
		mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, created_at)
			VALUES ($1, $2, $3, '{}', 'pull', now() - interval '1 hour' + (SELECT count(*) FROM inbox) * interval '1 second')`, source, key, agg)
		if extra != "" {
			mustExec(t, db, `UPDATE inbox SET `+extra+` WHERE idempotency_key = $1 AND source = $2`, key, source)
		}
	}
	ins("s", "a1", "A", "")
	ins("s", "a2", "A", "")
	ins("s", "b1", "B", "state = 'processing', claim_token = gen_random_uuid(), lease_expires_at = now() + interval '1 hour'")
	ins("s", "b2", "B", "")
	ins("s", "c1", "C", "state = 'processing', claim_token = gen_random_uuid(), lease_expires_at = now() - interval '1 second'")
	ins("s", "c2", "C", "")
	ins("s", "n1", nil, "")
	ins("s", "n2", nil, "")
	ins("s", "later", "D", "scheduled_at = now() + interval '1 hour'")
	ins("s", "done", "E", "state = 'processed'")
	ins("s", "push", "F", "consumption = 'push'")
	ins("other", "o1", "A", "")
	got := claimSQL(t, db, "s", 10)
	if strings.Join(keys(got), ",") != "a1,c1,n1,n2" {
		t.Errorf("claimed %v, want a1 (A's first), c1 (C's expired lease), n1, n2", keys(got))
	}
	if again := claimSQL(t, db, "s", 10); len(again) != 0 {
		t.Errorf("a second claim took %v while every aggregate is busy", keys(again))
	}
	if o := claimSQL(t, db, "other", 10); strings.Join(keys(o), ",") != "o1" {
		t.Errorf("aggregate A on another source: %v", keys(o))
	}
	a1 := got[0]
	wrong := map[string]any{"id": a1.id, "token": "00000000-0000-0000-0000-000000000000"}
	for _, name := range []string{"complete", "dead"} {
		if n := fencedSQL(t, db, name, with(wrong, "error", "x")); n != 0 {
			t.Errorf("%s with another token changed %d rows", name, n)
		}
	}
	if n := fencedSQL(t, db, "renew", with(wrong, "lease_ms", 1000)); n != 0 {
		t.Errorf("renew with another token changed %d rows", n)
	}
	own := map[string]any{"id": a1.id, "token": a1.token}
	if n := fencedSQL(t, db, "renew", with(own, "lease_ms", 60_000)); n != 1 {
		t.Errorf("renew changed %d rows", n)
	}
	if n := fencedSQL(t, db, "retry", with(own, "delay_ms", int64(0), "error", "boom")); n != 1 {
		t.Errorf("retry changed %d rows", n)
	}
	if n := fencedSQL(t, db, "complete", own); n != 0 {
		t.Error("the token still works after the retry")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM inbox WHERE id = $1 AND state = 'pending' AND attempt = 1
		AND last_error = 'boom' AND claim_token IS NULL AND lease_expires_at IS NULL`, a1.id); n != 1 {
		t.Error("retry did not return the row to pending with attempt 1")
	}
	// The claim orders by scheduled_at first: the retried a1 is due now,
	// after a2, so a2 comes first (the README states it).
	if again := claimSQL(t, db, "s", 10); strings.Join(keys(again), ",") != "a2" {
		t.Errorf("after the retry: %v", keys(again))
	}
	// An expired lease fences every write of its old owner.
	c1 := got[1]
	mustExec(t, db, `UPDATE inbox SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, c1.id)
	if n := fencedSQL(t, db, "complete", map[string]any{"id": c1.id, "token": c1.token}); n != 0 {
		t.Error("a completion under an expired lease changed the row")
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}
