package sqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/startup"
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
// table is missing or when a column that a later release added and that
// QueueBox needs is absent: the inbox headers column and the outbox
// sequence column. The error carries the T-SQL statements that add
// each missing column (16_Use_custom_tables.md), all at once, so one fix
// and one restart suffice. The lane columns (destination, origin_id) are
// not required: a table without them runs in key order (one order per key
// across destinations, no fan-out), and laneGaps holds the statements
// that add them, for the start to log.
func (db *DB) CheckSchema(ctx context.Context, l schema.Layout, keys startup.Keys) (laneGaps []string, err error) {
	inboxCols, err := db.columns(ctx, l.I.Table)
	if err != nil {
		return nil, err
	}
	outboxCols, err := db.columns(ctx, l.O.Table)
	if err != nil {
		return nil, err
	}
	if err := l.MissingTable(inboxCols, outboxCols); err != nil {
		return nil, err
	}
	missing, laneGaps := missingColumns(l, inboxCols, outboxCols, keys)
	if len(missing) > 0 {
		return nil, errors.New(strings.Join(missing, " "))
	}
	return laneGaps, nil
}

// missingColumns returns one message per checked column that the tables
// lack (the lane columns apart, in laneGaps), each with the T-SQL that adds it, in the order the statements
// must run. The lane index needs both the sequence and the destination
// column, so it comes with the destination column, or with the sequence
// column when only that one is missing.
func missingColumns(l schema.Layout, inboxCols, outboxCols map[string]bool, keys startup.Keys) (missing, laneGaps []string) {
	o, has := l.O, func(col string) bool { return outboxCols[schema.Unquote(col)] }
	if !inboxCols[schema.Unquote(l.I.Headers)] {
		missing = append(missing, fmt.Sprintf("the inbox table %s has no column %s (%s). Add it: ALTER TABLE %s ADD %s NVARCHAR(MAX) NOT NULL DEFAULT '{}';",
			l.I.Table, l.I.Headers, keys.InboxHeaders, l.I.Table, l.I.Headers))
	}
	index := func(suffix string) string { return schema.SQLServer.Quote("ix_" + l.OutboxTable + "_" + suffix) }
	lane := fmt.Sprintf("CREATE INDEX %s ON %s (%s, %s, %s) WHERE %s IN ('pending', 'processing') AND %s > '';",
		index("lane_sequence"), o.Table, o.Key, o.Destination, o.Sequence, o.State, o.Key)
	if !has(o.Sequence) {
		msg := fmt.Sprintf("the outbox table %s has no column %s (%s). Add it: ALTER TABLE %s ADD %s BIGINT IDENTITY(1,1) NOT NULL;",
			o.Table, o.Sequence, keys.OutboxSequence, o.Table, o.Sequence)
		if has(o.Destination) {
			msg += " " + lane
		}
		missing = append(missing, msg)
	}
	if !has(o.Destination) {
		laneGaps = append(laneGaps, fmt.Sprintf("the outbox table %s has no column %s (%s). Add it: ALTER TABLE %s ADD %s NVARCHAR(200) NOT NULL DEFAULT ''; %s CREATE INDEX %s ON %s (%s) WHERE %s = 'pending' AND %s = '' AND %s > '';",
			o.Table, o.Destination, keys.OutboxDestination, o.Table, o.Destination, lane,
			index("unrouted"), o.Table, o.Sequence, o.State, o.Destination, o.Key))
	}
	if !has(o.OriginID) {
		laneGaps = append(laneGaps, fmt.Sprintf("the outbox table %s has no column %s (%s). Add it: ALTER TABLE %s ADD %s UNIQUEIDENTIFIER NULL; CREATE INDEX %s ON %s (%s) WHERE %s IS NOT NULL;",
			o.Table, o.OriginID, keys.OutboxOriginID, o.Table, o.OriginID, index("origin"), o.Table, o.OriginID, o.OriginID))
	}
	return missing, laneGaps
}

// HasTable reports whether the quoted table exists: the start asks it of
// the delivery ledger's table, which a database not yet migrated to V17
// lacks.
func (db *DB) HasTable(ctx context.Context, quotedTable string) (bool, error) {
	cols, err := db.columns(ctx, quotedTable)
	return cols != nil, err
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
