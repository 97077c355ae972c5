package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// index is one index of a table as pg_get_indexdef writes it; constraint
// names the constraint it backs (a primary key or unique constraint), if
// any.
type index struct {
	name, def, constraint string
	unique, primary       bool
}

// convertEmpty replaces the tables, freshly created by the migrations and
// still empty, with tables partitioned by created_at that have the same
// columns, defaults, check constraints and indexes, all in one
// transaction. A partitioned table's unique indexes must include the
// partition key, so the primary key becomes (id, created_at) and a unique
// index without created_at (the inbox's (source, idempotency_key))
// becomes a plain index of the same columns: the inbox insert keeps the
// key unique itself (see inbox_key_lock.sql). It converts nothing when
// any unpartitioned table holds rows, so the two tables never end up in
// two modes, and returns the tables it converted.
func convertEmpty(ctx context.Context, conn *pgx.Conn, tables []partTable) (converted []string, err error) {
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var plain []partTable // the empty, unpartitioned tables to rebuild
		for _, t := range tables {
			// The lock comes first: an application that writes a row now
			// either commits before the check below or waits for the new
			// table.
			if _, err := tx.Exec(ctx, "LOCK TABLE "+t.quoted+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				return fmt.Errorf("partition %s: lock: %w", t.raw, err)
			}
			var kind string
			var populated bool
			if err := tx.QueryRow(ctx, `SELECT relkind::text, EXISTS (SELECT 1 FROM `+t.quoted+`) FROM pg_class WHERE oid = to_regclass($1)`,
				t.quoted).Scan(&kind, &populated); err != nil {
				return fmt.Errorf("partition %s: read the table: %w", t.raw, err)
			}
			switch {
			case kind == "p":
			case populated:
				return nil
			default:
				plain = append(plain, t)
			}
		}
		for _, t := range plain {
			if err := rebuildPartitioned(ctx, tx, t); err != nil {
				return err
			}
			converted = append(converted, t.raw)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return converted, nil
}

func rebuildPartitioned(ctx context.Context, tx pgx.Tx, t partTable) error {
	// The active index is built on the empty table first and copied with
	// the others, so that its definition reads as after a conversion of a
	// populated table (migrate partition), which copies it the same way.
	if t.activeIndex {
		if _, err := tx.Exec(ctx, t.activeIndexOn("", t.quoted)); err != nil {
			return fmt.Errorf("partition %s: %w", t.raw, err)
		}
	}
	indexes, err := readIndexes(ctx, tx, t.quoted)
	if err != nil {
		return err
	}
	owned, err := readOwnedSequences(ctx, tx, t.quoted)
	if err != nil {
		return fmt.Errorf("partition %s: %w", t.raw, err)
	}
	old := quoteIdent(t.raw + "_unpartitioned")
	stmts := []string{}
	// A sequence owned by a column goes with its table: free it first
	// (outbox.sequence, V11), and give it to the new column after.
	for _, seq := range owned {
		stmts = append(stmts, "ALTER SEQUENCE "+seq.name+" OWNED BY NONE")
	}
	stmts = append(stmts,
		"ALTER TABLE "+t.quoted+" RENAME TO "+old,
		"CREATE TABLE "+t.quoted+" (LIKE "+old+" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE ("+t.createdAt+")",
		"DROP TABLE "+old,
		"ALTER TABLE "+t.quoted+" ADD CONSTRAINT "+quoteIdent(t.raw+"_pkey")+" PRIMARY KEY (id, "+t.createdAt+")",
	)
	for _, ix := range indexes {
		if ix.primary {
			continue
		}
		stmts = append(stmts, plainIndex(ix))
	}
	for _, seq := range owned {
		stmts = append(stmts, "ALTER SEQUENCE "+seq.name+" OWNED BY "+t.quoted+"."+seq.column)
	}
	stmts = append(stmts, "CREATE TABLE "+quoteIdent(t.raw+"_default")+" PARTITION OF "+t.quoted+" DEFAULT")
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("partition %s: %s: %w", t.raw, s, err)
		}
	}
	return nil
}

// readIndexes lists the indexes of a table with their definitions.
func readIndexes(ctx context.Context, q querier, quoted string) ([]index, error) {
	rows, err := q.Query(ctx, `SELECT c.relname, pg_get_indexdef(i.indexrelid), i.indisunique, i.indisprimary,
			COALESCE((SELECT conname FROM pg_constraint WHERE conindid = i.indexrelid AND conrelid = i.indrelid), '')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = to_regclass($1) ORDER BY c.relname`, quoted)
	if err != nil {
		return nil, fmt.Errorf("read the indexes of %s: %w", quoted, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (index, error) {
		var ix index
		err := r.Scan(&ix.name, &ix.def, &ix.unique, &ix.primary, &ix.constraint)
		return ix, err
	})
	if err != nil {
		return nil, fmt.Errorf("read the indexes of %s: %w", quoted, err)
	}
	return out, nil
}

// plainIndex returns the statement that recreates ix on the partitioned
// table. The definition names the table by its old name, which the new
// table has taken over. A unique index that leaves out created_at cannot
// exist on a partitioned table: it comes back as a plain index, renamed
// from uq_ to idx_ so that its name does not promise uniqueness.
func plainIndex(ix index) string {
	if !ix.unique {
		return ix.def
	}
	return "CREATE INDEX " + quoteIdent(plainName(ix.name)) + onClause(ix.def)
}

// plainName is the name of the plain index that stands for the unique
// index name on a partitioned table.
func plainName(name string) string {
	if rest, ok := strings.CutPrefix(name, "uq_"); ok {
		return "idx_" + rest
	}
	return name
}

// ownedSequence is a sequence that a column of the table owns.
type ownedSequence struct{ name, column string }

// readOwnedSequences lists the sequences that the table's columns own.
func readOwnedSequences(ctx context.Context, tx pgx.Tx, quoted string) ([]ownedSequence, error) {
	rows, err := tx.Query(ctx, `SELECT s.seq, quote_ident(a.attname)
		FROM pg_attribute a
		CROSS JOIN LATERAL (SELECT pg_get_serial_sequence($1, a.attname) AS seq) s
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND s.seq IS NOT NULL`, quoted)
	if err != nil {
		return nil, fmt.Errorf("read its sequences: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ownedSequence, error) {
		var s ownedSequence
		err := r.Scan(&s.name, &s.column)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("read its sequences: %w", err)
	}
	return out, nil
}

// quoteIdent quotes a name that QueueBox builds from a fixed table name
// and digits.
func quoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }
