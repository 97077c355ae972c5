package pgtest_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	queuebox "github.com/alternayte/queuebox/clients/go"
)

// A benchmark, so `go test ./...` and `make test` do not run it:
//
//	go test -run '^$' -bench BenchmarkPull -benchtime 1x -timeout 60m . [-pullbench.rows 3000] [-pullbench.rounds 3]
var (
	pullbenchRows   = flag.Int("pullbench.rows", 3000, "rows per run of BenchmarkPull")
	pullbenchRounds = flag.Int("pullbench.rounds", 3, "runs of each side per configuration; the table shows the medians")
)

const benchSource = "bench"

// benchHandler is one handler of the benchmark: what it runs in the
// transaction before the completion.
type benchHandler struct {
	name string
	run  func(ctx context.Context, id string, tx *sql.Tx) error
}

var benchHandlers = []benchHandler{
	{"no-op", func(context.Context, string, *sql.Tx) error { return nil }},
	{"one insert", func(ctx context.Context, id string, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO effects (msg_id) VALUES ($1)", id)
		return err
	}},
}

// BenchmarkPull measures processed rows per second of the library beside
// a SQL-only loop that runs the same statements (the contract files of
// examples/pull/sql, which the library embeds, with the same :name to $n
// rewriting) in the same transactions at the same concurrency, in the same
// run and on the same schema. Each run starts from the same backlog of
// rows, one per aggregate, and ends when no row is left unprocessed.
func BenchmarkPull(b *testing.B) {
	// One invocation measures every configuration with its own clock
	// (rows per second over a whole backlog), so b.N is not used: run it
	// with -benchtime 1x.
	var t testing.TB = b
	db := migrated(t)
	db.SetMaxOpenConns(0) // each run opens the pool it needs
	mustExec(t, db, "CREATE TABLE effects (msg_id uuid NOT NULL)")
	rows := *pullbenchRows
	var version string
	if err := db.QueryRow("SHOW server_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "rows per run: %d; medians of %d runs per side; %s; PostgreSQL %s; GOMAXPROCS %d; load average at start: %s\n",
		rows, *pullbenchRounds, runtime.Version(), version, runtime.GOMAXPROCS(0), loadAverage())
	out.WriteString("| handler | concurrency | batch | library rows/s | SQL-only rows/s | library / SQL |\n")
	out.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, h := range benchHandlers {
		for _, concurrency := range []int{1, 8} {
			for _, batch := range []int{10, 100} {
				var libs, raws []float64
				for round := range *pullbenchRounds {
					// Alternate which side runs first, so that neither
					// always gets the warmer cache or the quieter moment.
					sides := []func(){
						func() {
							loadBacklog(t, db, rows)
							libs = append(libs, benchLibrary(t, db, h, concurrency, batch, rows))
						},
						func() { loadBacklog(t, db, rows); raws = append(raws, benchSQL(t, db, h, concurrency, batch, rows)) },
					}
					if round%2 == 1 {
						sides[0], sides[1] = sides[1], sides[0]
					}
					sides[0]()
					sides[1]()
				}
				lib, raw := median(libs), median(raws)
				line := fmt.Sprintf("| %s | %d | %d | %.0f | %.0f | %.0f %% |", h.name, concurrency, batch, lib, raw, 100*lib/raw)
				t.Log(line)
				out.WriteString(line + "\n")
			}
		}
	}
	fmt.Fprintf(&out, "load average at end: %s\n", loadAverage())
	fmt.Print(out.String())
}

// loadBacklog empties the tables and inserts rows pull rows of the source,
// each of its own aggregate.
func loadBacklog(t testing.TB, db *sql.DB, rows int) {
	t.Helper()
	mustExec(t, db, "TRUNCATE inbox, effects")
	mustExec(t, db, `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption)
		SELECT $1, 'k' || i, 'a' || i, jsonb_build_object('i', i), 'pull' FROM generate_series(1, $2::int) AS g(i)`,
		benchSource, rows)
	mustExec(t, db, "ANALYZE inbox")
}

// unprocessed counts the rows not yet processed.
func unprocessed(t testing.TB, db *sql.DB) int {
	t.Helper()
	return queryInt(t, db, "SELECT count(*) FROM inbox WHERE state <> 'processed'")
}

// checkRun fails the test unless every row was processed and, for the
// insert handler, stored one business row.
func checkRun(t testing.TB, db *sql.DB, h benchHandler, rows int, what string) {
	t.Helper()
	if n := unprocessed(t, db); n != 0 {
		t.Fatalf("%s left %d rows unprocessed", what, n)
	}
	if h.name == "one insert" {
		if n := queryInt(t, db, "SELECT count(*) FROM effects"); n != rows {
			t.Fatalf("%s stored %d business rows for %d messages", what, n, rows)
		}
	}
}

// poolOn opens a pool of at most n connections on the schema of db, kept
// idle between transactions, as an application would size it.
func poolOn(t testing.TB, db *sql.DB, n int) *sql.DB {
	t.Helper()
	var schema string
	if err := db.QueryRow("SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(testServer())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	p, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	p.SetMaxOpenConns(n)
	p.SetMaxIdleConns(n)
	return p
}

// benchLibrary runs an InboxWorker until every row is processed and
// returns the rows per second. The handler counts its calls; once it has
// seen every row, the run polls for the last completions.
func benchLibrary(t testing.TB, db *sql.DB, h benchHandler, concurrency, batch, rows int) float64 {
	t.Helper()
	pool := poolOn(t, db, concurrency+2)
	defer pool.Close()
	w, err := queuebox.NewInboxWorker(pool, queuebox.Options{
		Source: benchSource, BatchSize: batch, MaxConcurrency: concurrency, PollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := 0
	allSeen := make(chan struct{})
	handler := func(ctx context.Context, m queuebox.Message, tx *sql.Tx) error {
		if err := h.run(ctx, m.ID, tx); err != nil {
			return err
		}
		mu.Lock()
		seen++
		if seen == rows {
			close(allSeen)
		}
		mu.Unlock()
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- w.Run(ctx, handler) }()
	select {
	case <-allSeen:
	case <-time.After(30 * time.Minute):
		t.Fatal("the library did not handle every row in 30 minutes")
	}
	for unprocessed(t, db) != 0 {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkRun(t, db, h, rows, "the library")
	return float64(rows) / elapsed.Seconds()
}

// benchSQL is the SQL-only loop: one claimer, each claim alone in a READ
// COMMITTED transaction, committed before its rows start; then each row on
// a free slot in its own transaction: the handler's statements,
// complete.sql (which must change one row), COMMIT. After a claim that
// returns nothing it waits for a running row to finish, and it ends when a
// claim returns nothing and no row runs. Renewals, retries and dead
// letters do not run: no row fails, and the library's renewals are its own
// cost.
func benchSQL(t testing.TB, db *sql.DB, h benchHandler, concurrency, batch, rows int) float64 {
	t.Helper()
	pool := poolOn(t, db, concurrency+2)
	defer pool.Close()
	claimText, claimParams := contract(t, "claim")
	completeText, completeParams := contract(t, "complete")
	claimArgs := ordered(t, claimParams, map[string]any{
		"source": benchSource, "batch": batch, "lease_ms": 30_000, "cand_limit": min(max(3*batch, 50), 500),
	})
	ctx := context.Background()
	slots := make(chan struct{}, concurrency)
	finished := make(chan struct{}, concurrency)
	var running sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	inFlight := 0
	handle := func(id, token string) error {
		tx, err := pool.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // after Commit it only reports ErrTxDone
		if err := h.run(ctx, id, tx); err != nil {
			return err
		}
		args := ordered(t, completeParams, map[string]any{"id": id, "token": token})
		res, err := tx.ExecContext(ctx, completeText, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("the completion changed %d rows (%v)", n, err)
		}
		return tx.Commit()
	}
	start := time.Now()
	for {
		claimed, err := benchClaim(ctx, pool, claimText, claimArgs)
		if err != nil {
			t.Fatal(err)
		}
		if len(claimed) == 0 {
			mu.Lock()
			idle := inFlight == 0
			mu.Unlock()
			if idle {
				break
			}
			<-finished
			continue
		}
		for _, c := range claimed {
			slots <- struct{}{}
			mu.Lock()
			inFlight++
			mu.Unlock()
			running.Add(1)
			go func(id, token string) {
				defer running.Done()
				err := handle(id, token)
				mu.Lock()
				inFlight--
				if err != nil {
					failures = append(failures, err)
				}
				mu.Unlock()
				<-slots
				select {
				case finished <- struct{}{}:
				default:
				}
			}(c[0], c[1])
		}
	}
	elapsed := time.Since(start)
	running.Wait()
	if err := errors.Join(failures...); err != nil {
		t.Fatal(err)
	}
	checkRun(t, db, h, rows, "the SQL-only loop")
	return float64(rows) / elapsed.Seconds()
}

// benchClaim runs the claim alone in a READ COMMITTED transaction and
// reads every column the library reads; it returns each row's id and
// token.
func benchClaim(ctx context.Context, pool *sql.DB, text string, args []any) ([][2]string, error) {
	tx, err := pool.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it only reports ErrTxDone
	rs, err := tx.QueryContext(ctx, text, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][2]string
	for rs.Next() {
		var id, source, key, payload, headers, token string
		var aggregate, event, correlation sql.NullString
		var attempt int
		if err := rs.Scan(&id, &source, &key, &aggregate, &event, &payload, &headers, &attempt, &correlation, &token); err != nil {
			return nil, err
		}
		out = append(out, [2]string{id, token})
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	return out, tx.Commit()
}

// ordered puts named values in the order of a statement's parameters.
func ordered(t testing.TB, params []string, values map[string]any) []any {
	args := make([]any, len(params))
	for i, p := range params {
		v, ok := values[p]
		if !ok {
			t.Errorf("no value for parameter %s", p)
		}
		args[i] = v
	}
	return args
}

// median is the middle value (the mean of the two middle ones for an even
// count).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// loadAverage is /proc/loadavg's first three fields, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
