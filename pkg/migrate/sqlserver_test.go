package migrate_test

// The SQL Server migrations cannot run here: there is no SQL Server on the
// test machine. These tests read the files instead and hold the resulting
// schema to the documented SQL Server columns and indexes of the inbox and
// outbox table pages (28_Inbox_table.md, 30_Outbox_table.md), and of the
// delivery ledger that V17 adds (docs/dead-letters.md).

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/migrations"
	"github.com/alternayte/queuebox/pkg/migrate"
)

type sqlColumn struct {
	Type     string
	Nullable bool
	Default  string // "" for none
}

type sqlIndex struct {
	Columns []string
	Filter  string // "" for none; "unique" for the unique constraint
}

// The SQL Server column of each documented column: type, null, default.
var docColumns = map[string]map[string]sqlColumn{
	"outbox": {
		"id":               {"UNIQUEIDENTIFIER", false, "NEWID()"},
		"topic":            {"NVARCHAR(255)", false, ""},
		"[key]":            {"NVARCHAR(255)", true, ""},
		"payload":          {"NVARCHAR(MAX)", false, ""},
		"headers":          {"NVARCHAR(MAX)", false, "'{}'"},
		"aggregate_type":   {"NVARCHAR(255)", true, ""},
		"state":            {"NVARCHAR(50)", false, "'pending'"},
		"attempt":          {"INT", false, "0"},
		"max_attempts":     {"INT", false, "5"},
		"scheduled_at":     {"DATETIME2", false, "GETUTCDATE()"},
		"created_at":       {"DATETIME2", false, "GETUTCDATE()"},
		"updated_at":       {"DATETIME2", false, "GETUTCDATE()"},
		"claimed_at":       {"DATETIME2", true, ""},
		"claim_token":      {"UNIQUEIDENTIFIER", true, ""},
		"lease_expires_at": {"DATETIME2", true, ""},
		"last_error":       {"NVARCHAR(MAX)", true, ""},
		"sequence":         {"BIGINT", false, "NEXT VALUE FOR outbox_sequence_seq"},
		// V13, the workbench (docs/workbench-api.md).
		"discarded_at": {"DATETIME2", true, ""},
		// V16, lanes and fan-out.
		"destination": {"NVARCHAR(200)", false, "''"},
		"origin_id":   {"UNIQUEIDENTIFIER", true, ""},
	},
	// V17, the delivery ledger (docs/dead-letters.md).
	"outbox_attempts": {
		"id":            {"BIGINT", false, ""},
		"outbox_id":     {"UNIQUEIDENTIFIER", false, ""},
		"message_id":    {"UNIQUEIDENTIFIER", false, ""},
		"destination":   {"NVARCHAR(200)", false, ""},
		"attempt":       {"INT", false, ""},
		"started_at":    {"DATETIME2", false, ""},
		"duration_ms":   {"INT", false, ""},
		"outcome":       {"NVARCHAR(16)", false, ""},
		"failure_class": {"NVARCHAR(32)", true, ""},
		"status":        {"NVARCHAR(64)", true, ""},
		"answer":        {"NVARCHAR(1024)", true, ""},
		"recorded_at":   {"DATETIME2", false, "SYSUTCDATETIME()"},
	},
	"inbox": {
		"id":               {"UNIQUEIDENTIFIER", false, "NEWID()"},
		"source":           {"NVARCHAR(255)", false, ""},
		"idempotency_key":  {"NVARCHAR(255)", false, ""},
		"aggregate_id":     {"NVARCHAR(255)", true, ""},
		"event_type":       {"NVARCHAR(255)", true, ""},
		"payload":          {"NVARCHAR(MAX)", false, ""},
		"headers":          {"NVARCHAR(MAX)", false, "'{}'"},
		"correlation_id":   {"NVARCHAR(128)", true, ""},
		"consumption":      {"VARCHAR(4)", false, "'push'"},
		"state":            {"NVARCHAR(50)", false, "'pending'"},
		"created_at":       {"DATETIME2", false, "GETUTCDATE()"},
		"processed_at":     {"DATETIME2", true, ""},
		"scheduled_at":     {"DATETIME2", false, "SYSUTCDATETIME()"},
		"attempt":          {"INT", false, "0"},
		"last_error":       {"NVARCHAR(MAX)", true, ""},
		"claimed_at":       {"DATETIME2", true, ""},
		"claim_token":      {"UNIQUEIDENTIFIER", true, ""},
		"lease_expires_at": {"DATETIME2", true, ""},
		"discarded_at":     {"DATETIME2", true, ""},
	},
}

const (
	pendingRows    = "state = 'pending'"
	processingRows = "state = 'processing'"
)

// The documented SQL Server indexes besides the primary keys.
var docIndexes = map[string]map[string]sqlIndex{
	"outbox": {
		"idx_outbox_pending_scheduled":  {[]string{"state", "scheduled_at"}, pendingRows},
		"idx_outbox_state_updated":      {[]string{"state", "updated_at"}, ""},
		"idx_outbox_processing_claimed": {[]string{"claimed_at"}, processingRows},
		"idx_outbox_lane_sequence": {[]string{"[key]", "destination", "sequence"},
			"state IN ('pending', 'processing') AND [key] > ''"},
		"idx_outbox_unrouted":      {[]string{"sequence"}, "state = 'pending' AND destination = '' AND [key] > ''"},
		"idx_outbox_origin":        {[]string{"origin_id"}, "origin_id IS NOT NULL"},
		"idx_outbox_dead_sequence": {[]string{"sequence"}, "state = 'dead'"},
		"idx_outbox_unkeyed_due":   {[]string{"scheduled_at", "sequence"}, "state = 'pending' AND [key] IS NULL"},
		"idx_outbox_empty_key_due": {[]string{"scheduled_at", "sequence"}, "state = 'pending' AND [key] = ''"},
	},
	"outbox_attempts": {
		"idx_outbox_attempts_outbox":      {[]string{"outbox_id", "id"}, ""},
		"idx_outbox_attempts_destination": {[]string{"destination", "started_at"}, ""},
		"idx_outbox_attempts_started":     {[]string{"started_at"}, ""},
	},
	"inbox": {
		"uq_inbox_source_idempotency":   {[]string{"source", "idempotency_key"}, "unique"},
		"idx_inbox_state":               {[]string{"state"}, ""},
		"idx_inbox_state_created":       {[]string{"state", "created_at"}, ""},
		"idx_inbox_aggregate_state":     {[]string{"aggregate_id", "state"}, ""},
		"idx_inbox_processing_claimed":  {[]string{"claimed_at"}, processingRows},
		"idx_inbox_consumption_pending": {[]string{"consumption", "state", "scheduled_at"}, ""},
		"idx_inbox_pull_pending":        {[]string{"source", "scheduled_at", "created_at", "id"}, "consumption = 'pull' AND state = 'pending'"},
		"idx_inbox_pull_busy":           {[]string{"source", "aggregate_id", "lease_expires_at"}, "consumption = 'pull' AND state = 'processing'"},
		"idx_inbox_push_heads": {[]string{"aggregate_id", "state", "created_at", "id"},
			"consumption = 'push' AND state IN ('pending', 'processing') AND aggregate_id IS NOT NULL"},
		"idx_inbox_push_unkeyed": {[]string{"created_at", "id"}, "consumption = 'push' AND state = 'pending' AND aggregate_id IS NULL"},
	},
}

var (
	lineComment = regexp.MustCompile(`--[^\n]*`)
	spaces      = regexp.MustCompile(`\s+`)
	createTable = regexp.MustCompile(`(?is)^CREATE TABLE (\w+) \((.*)\)$`)
	addConstr   = regexp.MustCompile(`(?is)^ALTER TABLE (\w+) ADD CONSTRAINT \w+ DEFAULT (.+) FOR (\[?\w+\]?)$`)
	alterColumn = regexp.MustCompile(`(?is)^ALTER TABLE (\w+) ALTER COLUMN (.*)$`)
	addColumns  = regexp.MustCompile(`(?is)^ALTER TABLE (\w+) ADD (.*)$`)
	createIndex = regexp.MustCompile(`(?is)^CREATE (UNIQUE )?INDEX (\w+) ON (\w+) ?\(([^)]*)\)(?: WHERE (.*))?$`)
	dropIndex   = regexp.MustCompile(`(?is)^DROP INDEX (IF EXISTS )?(\w+) ON (\w+)$`)
	columnDef   = regexp.MustCompile(`(?is)^(\[?\w+\]?) (\w+(?: ?\([^)]*\))?)(.*)$`)
	defaultExpr = regexp.MustCompile(`(?i)\bDEFAULT ('[^']*'|\w+\(\)|\(.*\)|\w+)`)
	uniqueConst = regexp.MustCompile(`(?is)^CONSTRAINT (\w+) UNIQUE ?\(([^)]*)\)$`)
	keyWord     = regexp.MustCompile(`(?i)(PRIMARY )?(\[?)\bkey\b(\]?)`)
)

// code strips comments and folds whitespace.
func code(sql string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(lineComment.ReplaceAllString(sql, ""), " "))
}

// splitTop splits s on sep outside parentheses and quotes.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == sep && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func unparen(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

func parseColumn(t *testing.T, def string) (string, sqlColumn) {
	t.Helper()
	m := columnDef.FindStringSubmatch(def)
	require.NotNil(t, m, "column definition %q", def)
	rest := strings.ToUpper(m[3])
	col := sqlColumn{
		Type:     strings.ToUpper(strings.ReplaceAll(m[2], " ", "")),
		Nullable: !strings.Contains(rest, "NOT NULL") && !strings.Contains(rest, "PRIMARY KEY"),
	}
	if d := defaultExpr.FindStringSubmatch(m[3]); d != nil {
		col.Default = unparen(d[1])
	}
	return m[1], col
}

// sqlServerSchema applies the statements of the SQL Server files to a
// model of the outbox, inbox and outbox_attempts tables.
func sqlServerSchema(t *testing.T) (map[string]map[string]sqlColumn, map[string]map[string]sqlIndex) {
	t.Helper()
	ms, err := migrate.Load(migrations.SQLServer)
	require.NoError(t, err)
	cols := map[string]map[string]sqlColumn{}
	idx := map[string]map[string]sqlIndex{}
	tracked := func(table string) bool { return table == "outbox" || table == "inbox" || table == "outbox_attempts" }
	for _, m := range ms {
		for _, batch := range migrate.SplitBatches(m.SQL) {
			for _, stmt := range splitTop(code(batch), ';') {
				switch {
				case createTable.MatchString(stmt):
					g := createTable.FindStringSubmatch(stmt)
					if !tracked(g[1]) {
						continue
					}
					require.NotContains(t, cols, g[1], "%s creates %s twice", m.Script, g[1])
					cols[g[1]], idx[g[1]] = map[string]sqlColumn{}, map[string]sqlIndex{}
					for _, def := range splitTop(g[2], ',') {
						if u := uniqueConst.FindStringSubmatch(def); u != nil {
							idx[g[1]][u[1]] = sqlIndex{Columns: splitTop(u[2], ','), Filter: "unique"}
							continue
						}
						name, col := parseColumn(t, def)
						cols[g[1]][name] = col
					}
				case addConstr.MatchString(stmt):
					g := addConstr.FindStringSubmatch(stmt)
					col, ok := cols[g[1]][g[3]]
					require.True(t, ok, "%s: default for unknown column %s.%s", m.Script, g[1], g[3])
					col.Default = unparen(g[2])
					cols[g[1]][g[3]] = col
				case alterColumn.MatchString(stmt):
					g := alterColumn.FindStringSubmatch(stmt)
					name, col := parseColumn(t, g[2])
					old, ok := cols[g[1]][name]
					require.True(t, ok, "%s: alters unknown column %s.%s", m.Script, g[1], name)
					col.Default = old.Default
					cols[g[1]][name] = col
				case addColumns.MatchString(stmt):
					g := addColumns.FindStringSubmatch(stmt)
					if !tracked(g[1]) {
						continue
					}
					for _, def := range splitTop(g[2], ',') {
						name, col := parseColumn(t, def)
						require.NotContains(t, cols[g[1]], name, "%s adds %s.%s twice", m.Script, g[1], name)
						cols[g[1]][name] = col
					}
				case createIndex.MatchString(stmt):
					g := createIndex.FindStringSubmatch(stmt)
					if !tracked(g[3]) {
						continue
					}
					filter := g[5]
					if g[1] != "" {
						filter = "unique"
					}
					require.NotContains(t, idx[g[3]], g[2], "%s creates index %s twice", m.Script, g[2])
					idx[g[3]][g[2]] = sqlIndex{Columns: splitTop(g[4], ','), Filter: filter}
				case dropIndex.MatchString(stmt):
					g := dropIndex.FindStringSubmatch(stmt)
					if !tracked(g[3]) {
						continue
					}
					// Without IF EXISTS, a drop of an index that no file
					// created would fail the migration.
					_, ok := idx[g[3]][g[2]]
					require.True(t, ok || g[1] != "", "%s drops index %s, which no earlier file creates", m.Script, g[2])
					delete(idx[g[3]], g[2])
				case strings.HasPrefix(strings.ToUpper(stmt), "ALTER TABLE"), strings.HasPrefix(strings.ToUpper(stmt), "DROP"):
					t.Errorf("%s: a statement this test does not understand: %s", m.Script, stmt)
				}
			}
		}
	}
	return cols, idx
}

func TestSQLServerBatchesAreNotEmpty(t *testing.T) {
	t.Parallel()
	ms, err := migrate.Load(migrations.SQLServer)
	require.NoError(t, err)
	for _, m := range ms {
		batches := migrate.SplitBatches(m.SQL)
		require.NotEmpty(t, batches, m.Script)
		for i, b := range batches {
			require.NotEmpty(t, code(b), "%s: batch %d holds only comments", m.Script, i+1)
		}
	}
}

func TestSQLServerColumnsMatchTheDocs(t *testing.T) {
	t.Parallel()
	cols, _ := sqlServerSchema(t)
	for table, want := range docColumns {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, cols[table])
		})
	}
}

func TestSQLServerIndexesMatchTheDocs(t *testing.T) {
	t.Parallel()
	_, idx := sqlServerSchema(t)
	for table, want := range docIndexes {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, idx[table])
		})
	}
}

// KEY is a reserved word on SQL Server: the key column is [key] wherever
// it appears (PRIMARY KEY is the keyword, not the column).
func TestSQLServerQuotesTheKeyColumn(t *testing.T) {
	t.Parallel()
	ms, err := migrate.Load(migrations.SQLServer)
	require.NoError(t, err)
	uses := 0
	for _, m := range ms {
		for _, g := range keyWord.FindAllStringSubmatch(code(m.SQL), -1) {
			if g[1] != "" {
				continue // PRIMARY KEY
			}
			require.Equal(t, "[key]", g[2]+"key"+g[3], "%s names the key column without brackets", m.Script)
			require.Equal(t, "key", strings.Trim(g[0], "[]"), "%s spells the key column %q", m.Script, g[0])
			uses++
		}
	}
	// The column of V1 and the index of V11 at least.
	require.GreaterOrEqual(t, uses, 2)
	require.True(t, slices.ContainsFunc(ms, func(m migrate.Migration) bool {
		return m.Version == 11 && strings.Contains(m.SQL, "([key], sequence)")
	}))
}

// SQL Server compiles a batch whole before it runs it, so a statement
// that names a column added earlier in the same batch fails to compile
// (on an existing table): each file adds its columns in one batch and
// indexes them in a later one.
func TestSQLServerIndexesNoColumnOfTheirOwnBatch(t *testing.T) {
	t.Parallel()
	ms, err := migrate.Load(migrations.SQLServer)
	require.NoError(t, err)
	for _, m := range ms {
		for i, batch := range migrate.SplitBatches(m.SQL) {
			added := map[string]bool{}
			for _, stmt := range splitTop(code(batch), ';') {
				if g := addColumns.FindStringSubmatch(stmt); g != nil && !addConstr.MatchString(stmt) {
					for _, def := range splitTop(g[2], ',') {
						name, _ := parseColumn(t, def)
						added[name] = true
					}
				}
				if g := createIndex.FindStringSubmatch(stmt); g != nil {
					for _, col := range splitTop(g[4], ',') {
						require.False(t, added[col], "%s, batch %d: index %s names %s, added in the same batch", m.Script, i+1, g[2], col)
					}
				}
			}
		}
	}
}
