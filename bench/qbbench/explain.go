package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// errRollback makes pgx.BeginFunc roll back after a successful EXPLAIN.
var errRollback = errors.New("rollback")

// statement renders the store statement name from its template in
// -queries with data, with the partials of that folder in reach, as the
// store renders it.
func (b *bench) statement(name string, data any) (string, error) {
	read := func(name string) (string, error) {
		text, err := os.ReadFile(filepath.Join(b.o.queriesDir, name+".sql"))
		return string(text), err
	}
	text, err := read(name)
	if err != nil {
		return "", err
	}
	partials, err := read("partials")
	if err != nil {
		return "", err
	}
	p, err := schema.ParsePartials(partials)
	if err != nil {
		return "", err
	}
	return p.Render(name, text, data)
}

// explain prints EXPLAIN (ANALYZE, BUFFERS) of one claim statement,
// rendered from its template in -queries with data, run with args inside
// a transaction begun as the store begins a claim's (postgres.ClaimBegin)
// that rolls back, so the rows keep their state.
func (b *bench) explain(ctx context.Context, db *benchDB, title, name string, data any, args ...any) error {
	sql, err := b.statement(name, data)
	if err != nil {
		return err
	}
	var plan []string
	err = pgx.BeginTxFunc(ctx, db.Store.Pool, pgx.TxOptions{BeginQuery: postgres.ClaimBegin}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		return errRollback
	})
	if err != nil && !errors.Is(err, errRollback) {
		return fmt.Errorf("explain %s: %w", name, err)
	}
	fmt.Printf("\n-- EXPLAIN (ANALYZE, BUFFERS) %s:\n%s\n", title, strings.Join(plan, "\n"))
	return nil
}
