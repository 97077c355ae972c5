package queuebox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// store runs the five statements of the SQL contract for one source.
// It is safe for concurrent use, as *sql.DB is.
type store struct {
	db      *sql.DB
	dialect Dialect
	source  string
	leaseMS int
	claim   statement
	renew   statement
	done    statement
	retry   statement
	dead    statement
}

func newStore(db *sql.DB, o Options) (*store, error) {
	s := &store{db: db, dialect: o.Dialect, source: o.Source, leaseMS: o.LeaseMS}
	for _, st := range []struct {
		name string
		to   *statement
	}{{"claim", &s.claim}, {"renew", &s.renew}, {"complete", &s.done}, {"retry", &s.retry}, {"dead", &s.dead}} {
		loaded, err := loadStatement(o.Dialect, *o.Schema, st.name)
		if err != nil {
			return nil, err
		}
		*st.to = loaded
	}
	return s, nil
}

// claimed is a claimed row: the message and the token the handler never
// sees.
type claimed struct {
	msg   Message
	token string
}

// claimSetting begins the PostgreSQL claim's transaction with the two
// settings the SQL contract asks for (examples/pull/sql/claim.sql):
// sorting off, which on a partitioned inbox keeps the ordered read of due
// rows from sorting a whole partition, and JIT off, since with sorting
// off the claim's estimated cost would make the server compile it at
// every run. One statement, as set_config with is_local, so that any
// driver sends it in one round trip.
const claimSetting = "SELECT set_config('enable_sort', 'off', true), set_config('jit', 'off', true)"

// claimRows claims up to batch rows in a transaction that holds nothing
// else and has committed when it returns. On PostgreSQL the library opens
// that transaction; on SQL Server the claim batch opens and commits its
// own, so it runs outside any transaction.
func (s *store) claimRows(ctx context.Context, batch int) ([]claimed, error) {
	args, err := s.claim.args(s.dialect, map[string]any{
		"source": s.source, "batch": batch, "lease_ms": s.leaseMS, "cand_limit": candLimit(batch),
	})
	if err != nil {
		return nil, err
	}
	if s.dialect == DialectSQLServer {
		rows, err := s.db.QueryContext(ctx, s.claim.text, args...)
		if err != nil {
			return nil, err
		}
		return scanClaimed(rows)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it only reports ErrTxDone
	if _, err := tx.ExecContext(ctx, claimSetting); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, s.claim.text, args...)
	if err != nil {
		return nil, err
	}
	out, err := scanClaimed(rows)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit the claim: %w", err)
	}
	return out, nil
}

// scanClaimed reads and closes the rows of a claim.
func scanClaimed(rows *sql.Rows) ([]claimed, error) {
	defer rows.Close()
	var out []claimed
	for rows.Next() {
		var c claimed
		var aggregate, event, correlation sql.NullString
		var payload, headers string
		if err := rows.Scan(&c.msg.ID, &c.msg.Source, &c.msg.IdempotencyKey, &aggregate, &event,
			&payload, &headers, &c.msg.Attempt, &correlation, &c.token); err != nil {
			return nil, fmt.Errorf("read a claimed row: %w", err)
		}
		c.msg.AggregateID = nullable(aggregate)
		c.msg.EventType = nullable(event)
		c.msg.CorrelationID = nullable(correlation)
		c.msg.Payload = json.RawMessage(payload)
		c.msg.Headers = parseHeaders(headers)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func nullable(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

// parseHeaders reads the headers column, a JSON object of strings. A
// value of another JSON type keeps its JSON text; text that is not an
// object gives no headers.
func parseHeaders(text string) map[string]string {
	out := map[string]string{}
	var raw map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &raw) != nil {
		return out
	}
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(v)
		}
	}
	return out
}

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// fenced runs a fenced statement and reports whether it changed the one
// row; false means another worker owns the row.
func (s *store) fenced(ctx context.Context, on execer, st statement, values map[string]any) (bool, error) {
	args, err := st.args(s.dialect, values)
	if err != nil {
		return false, err
	}
	res, err := on.ExecContext(ctx, st.text, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("%s: rows affected: %w", st.name, err)
	}
	if n > 1 {
		return false, fmt.Errorf("%s changed %d rows, not one", st.name, n)
	}
	return n == 1, nil
}

func (s *store) renewLease(ctx context.Context, c claimed) (bool, error) {
	return s.fenced(ctx, s.db, s.renew, map[string]any{"id": c.msg.ID, "token": c.token, "lease_ms": s.leaseMS})
}

func (s *store) complete(ctx context.Context, tx *sql.Tx, c claimed) (bool, error) {
	return s.fenced(ctx, tx, s.done, map[string]any{"id": c.msg.ID, "token": c.token})
}

func (s *store) retryLater(ctx context.Context, c claimed, delay time.Duration, reason string) (bool, error) {
	return s.fenced(ctx, s.db, s.retry, map[string]any{
		"id": c.msg.ID, "token": c.token, "delay_ms": delay.Milliseconds(), "error": reason,
	})
}

func (s *store) deadLetter(ctx context.Context, c claimed, reason string) (bool, error) {
	return s.fenced(ctx, s.db, s.dead, map[string]any{"id": c.msg.ID, "token": c.token, "error": reason})
}

// namedArg binds a SQL Server parameter by its name.
func namedArg(name string, v any) any { return sql.Named(name, v) }

// lockTimeout reports a SQL Server claim whose application lock timed out
// (Msg 51000), a transient failure. go-mssqldb's error type has this
// method; the library imports no driver.
func lockTimeout(err error) bool {
	var numbered interface{ SQLErrorNumber() int32 }
	return errors.As(err, &numbered) && numbered.SQLErrorNumber() == 51000
}
