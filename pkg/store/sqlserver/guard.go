package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/alternayte/queuebox/pkg/schema"
)

// The catalog reads of the schema guard. OBJECT_ID resolves a table name
// quoted in brackets through the user's default schema, as the
// statements do.
const (
	columnsSQL = `SELECT c.name FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(@p1)`
	indexesSQL = `SELECT STRING_AGG(c.name, N',') WITHIN GROUP (ORDER BY ic.key_ordinal)
FROM sys.index_columns AS ic
JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
WHERE ic.object_id = OBJECT_ID(@p1) AND ic.key_ordinal > 0
GROUP BY ic.index_id`
)

// CheckSchema reads the columns of both tables and stops the start when a
// table is missing or when the inbox headers column or the outbox
// sequence column is absent. The error carries the T-SQL statements that
// add each missing column (16_Use_custom_tables.md), both at once.
func (db *DB) CheckSchema(ctx context.Context, l schema.Layout, headersKey, sequenceKey string) error {
	inboxCols, err := db.columns(ctx, l.I.Table)
	if err != nil {
		return err
	}
	outboxCols, err := db.columns(ctx, l.O.Table)
	if err != nil {
		return err
	}
	if err := l.MissingTable(inboxCols, outboxCols); err != nil {
		return err
	}
	if missing := missingColumns(l, inboxCols, outboxCols, headersKey, sequenceKey); len(missing) > 0 {
		return errors.New(strings.Join(missing, " "))
	}
	return nil
}

// missingColumns returns one message per checked column that the tables
// lack, each with the T-SQL that adds it.
func missingColumns(l schema.Layout, inboxCols, outboxCols map[string]bool, headersKey, sequenceKey string) []string {
	var missing []string
	if !inboxCols[schema.Unquote(l.I.Headers)] {
		missing = append(missing, fmt.Sprintf("the inbox table %s has no column %s (%s). Add it: ALTER TABLE %s ADD %s NVARCHAR(MAX) NOT NULL DEFAULT '{}';",
			l.I.Table, l.I.Headers, headersKey, l.I.Table, l.I.Headers))
	}
	if !outboxCols[schema.Unquote(l.O.Sequence)] {
		index := schema.SQLServer.Quote("ix_" + l.OutboxTable + "_key_sequence")
		missing = append(missing, fmt.Sprintf("the outbox table %s has no column %s (%s). Add it: ALTER TABLE %s ADD %s BIGINT IDENTITY(1,1) NOT NULL; CREATE INDEX %s ON %s (%s, %s) WHERE %s IN ('pending', 'processing');",
			l.O.Table, l.O.Sequence, sequenceKey, l.O.Table, l.O.Sequence, index, l.O.Table, l.O.Key, l.O.Sequence, l.O.State))
	}
	return missing
}

// columns returns the column names of a quoted table, or nil when the
// table does not exist.
func (db *DB) columns(ctx context.Context, quotedTable string) (map[string]bool, error) {
	names, err := db.strings(ctx, columnsSQL, quotedTable)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", quotedTable, err)
	}
	var cols map[string]bool
	for _, n := range names {
		if cols == nil {
			cols = map[string]bool{}
		}
		cols[n] = true
	}
	return cols, nil
}

// strings runs a query of one text column and returns its values.
func (db *DB) strings(ctx context.Context, stmt string, args ...any) ([]string, error) {
	var out []string
	err := db.on(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, stmt, args...)
		if err != nil {
			return err
		}
		out, err = collect(rows, func(rows *sql.Rows) (string, error) {
			var s string
			return s, rows.Scan(&s)
		})
		return err
	})
	return out, err
}

// IndexWarnings names each index of the relay claim (V12) that the inbox
// table lacks, with the T-SQL that creates it. QueueBox starts without
// them (the claim stays correct), but its cost then grows with the
// backlog. An index counts when its leading key columns match.
func (db *DB) IndexWarnings(ctx context.Context, l schema.Layout) ([]string, error) {
	lists, err := db.strings(ctx, indexesSQL, l.I.Table)
	if err != nil {
		return nil, fmt.Errorf("read the indexes of %s: %w", l.I.Table, err)
	}
	indexes := make([][]string, len(lists))
	for n, cols := range lists {
		indexes[n] = strings.Split(cols, ",")
	}
	i, u := l.I, schema.Unquote
	var warnings []string
	if !schema.HasIndexOn(indexes, u(i.AggregateID), u(i.State), u(i.CreatedAt)) {
		warnings = append(warnings, fmt.Sprintf("the inbox table %s has no index on (%s, %s, %s): the relay claim slows as push rows pile up. Add it: CREATE INDEX idx_inbox_push_heads ON %s (%s, %s, %s, %s) WHERE %s = 'push' AND %s IN ('pending', 'processing') AND %s IS NOT NULL;",
			i.Table, i.AggregateID, i.State, i.CreatedAt, i.Table, i.AggregateID, i.State, i.CreatedAt, i.ID,
			i.Consumption, i.State, i.AggregateID))
	}
	if !schema.HasIndexOn(indexes, u(i.CreatedAt)) {
		warnings = append(warnings, fmt.Sprintf("the inbox table %s has no index that starts with %s: the relay claim of rows without an aggregate slows as they pile up. Add it: CREATE INDEX idx_inbox_push_unkeyed ON %s (%s, %s) WHERE %s = 'push' AND %s = 'pending' AND %s IS NULL;",
			i.Table, i.CreatedAt, i.Table, i.CreatedAt, i.ID, i.Consumption, i.State, i.AggregateID))
	}
	return warnings, nil
}
