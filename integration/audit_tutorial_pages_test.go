package integration

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// pageBlock is one fenced code block of a documentation page.
type pageBlock struct {
	Lang    string
	Text    string
	Heading string // the last "## " or "### " heading above the block
	Dialect string // "PostgreSQL", "SQL Server" or "" when no tab names one
}

// specDir is where the reference pages that the tutorial audits walk lie:
// beside the checkout, never inside it.
func specDir() string {
	if d := os.Getenv("QUEUEBOX_SPEC_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "spec")
}

// pageBlocks returns the fenced blocks of one page of the documentation,
// in page order, so a walk-through runs the text that a reader copies.
func pageBlocks(t *testing.T, page string) []pageBlock {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(specDir(), page))
	require.NoError(t, err, "the page %s (set QUEUEBOX_SPEC_DIR)", page)
	return markdownBlocks(t, page, string(raw))
}

// markdownBlocks returns the fenced blocks of the Markdown text of page,
// in order.
func markdownBlocks(t *testing.T, page, raw string) []pageBlock {
	t.Helper()
	var out []pageBlock
	text, heading := raw, ""
	var prev pageBlock
	for {
		open := strings.Index(text, "```")
		if open < 0 {
			return out
		}
		before := text[:open]
		heading = lastHeading(before, heading)
		rest := text[open+3:]
		nl := strings.Index(rest, "\n")
		require.GreaterOrEqual(t, nl, 0)
		end := strings.Index(rest[nl+1:], "```")
		require.GreaterOrEqual(t, end, 0, "an unclosed block in %s", page)
		b := pageBlock{Lang: strings.TrimSpace(rest[:nl]), Text: rest[nl+1 : nl+1+end], Heading: heading, Dialect: tabDialect(before)}
		if b.Dialect == "" && b.Lang == prev.Lang && b.Heading == prev.Heading {
			// A block with no tab marker above it, after a block of the
			// same kind in the same section, stays in that block's tab.
			b.Dialect = prev.Dialect
		}
		out, prev = append(out, b), b
		text = rest[nl+1+end+3:]
	}
}

// lastHeading returns the text of the last section heading in s, or prev.
func lastHeading(s, prev string) string {
	at := strings.LastIndex(s, "## ") // "### " ends with it too
	if at < 0 {
		return prev
	}
	line := strings.TrimLeft(s[at:], "# ")
	if nl := strings.Index(line, "\n"); nl >= 0 {
		line = line[:nl]
	}
	return line
}

// tabDialect names the database tab that the text before a block opens.
func tabDialect(before string) string {
	pg := max(strings.LastIndex(before, "* PostgreSQL"), strings.LastIndex(before, "- PostgreSQL"))
	ss := max(strings.LastIndex(before, "* SQL Server"), strings.LastIndex(before, "- SQL Server"))
	switch {
	case pg < 0 && ss < 0:
		return ""
	case pg > ss:
		return "PostgreSQL"
	default:
		return "SQL Server"
	}
}

// postgresSQL returns the sql blocks of a page that PostgreSQL runs: every
// block outside a SQL Server tab.
func postgresSQL(t *testing.T, page string) []pageBlock {
	t.Helper()
	var out []pageBlock
	for _, b := range pageBlocks(t, page) {
		if b.Lang == "sql" && b.Dialect != "SQL Server" {
			out = append(out, b)
		}
	}
	require.NotEmpty(t, out, "sql blocks in %s", page)
	return out
}

// blockUnder returns the first block of lang whose heading starts with
// heading and whose text contains every marker.
func blockUnder(t *testing.T, page, lang, heading string, markers ...string) string {
	t.Helper()
next:
	for _, b := range pageBlocks(t, page) {
		if b.Lang != lang || b.Dialect == "SQL Server" || !strings.HasPrefix(b.Heading, heading) {
			continue
		}
		for _, m := range markers {
			if !strings.Contains(b.Text, m) {
				continue next
			}
		}
		return b.Text
	}
	t.Fatalf("no %s block under %q with %q in %s", lang, heading, markers, page)
	return ""
}

// fillPlaceholders replaces the :name placeholders of the operations pages
// with SQL literals.
func fillPlaceholders(sql string, values map[string]string) string {
	for name, v := range values {
		sql = strings.ReplaceAll(sql, ":"+name, v)
	}
	return sql
}

// heredoc returns the text between <<'END' and the END line of a shell
// block: the SQL that a page pipes into psql.
func heredoc(t *testing.T, block, end string) string {
	t.Helper()
	open := strings.Index(block, "<<'"+end+"'\n")
	require.GreaterOrEqual(t, open, 0, "a heredoc %s in %q", end, block)
	body := block[open+len("<<'"+end+"'\n"):]
	closeAt := strings.Index(body, "\n"+end+"\n")
	require.GreaterOrEqual(t, closeAt, 0)
	return body[:closeAt+1]
}

// psqlCommands returns the -c arguments of a psql command in a shell block.
func psqlCommands(t *testing.T, block string) []string {
	t.Helper()
	var out []string
	for _, m := range psqlArg.FindAllStringSubmatch(block, -1) {
		out = append(out, m[1])
	}
	require.NotEmpty(t, out, "psql -c in %q", block)
	return out
}

var psqlArg = regexp.MustCompile(`-c "([^"]*)"`)

// psqlRows runs one query and returns its rows as the text that psql
// shows: the simple protocol returns every value in text form, and NULL
// becomes the empty string.
func psqlRows(t *testing.T, db database, query string, args ...any) [][]string {
	t.Helper()
	conn := db.open(t)
	defer conn.Close(context.Background())
	args = append([]any{pgx.QueryExecModeSimpleProtocol}, args...)
	rows, err := conn.Query(context.Background(), query, args...)
	require.NoError(t, err, query)
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var line []string
		for _, v := range rows.RawValues() {
			line = append(line, string(v))
		}
		out = append(out, line)
	}
	require.NoError(t, rows.Err(), query)
	return out
}

// psqlExec runs a script of one or more statements, as psql -f does.
func psqlExec(t *testing.T, db database, script string) {
	t.Helper()
	conn := db.open(t)
	defer conn.Close(context.Background())
	_, err := conn.Exec(context.Background(), script)
	require.NoError(t, err, script)
}

// open returns a connection that the caller closes, for helpers that run
// inside require.Eventually and must not hold one per try.
func (d database) open(t *testing.T) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), d.URL)
	require.NoError(t, err)
	return c
}

// psqlAffected runs one statement and returns the count that psql prints
// after UPDATE or DELETE.
func psqlAffected(t *testing.T, db database, statement string) int64 {
	t.Helper()
	conn := db.open(t)
	defer conn.Close(context.Background())
	tag, err := conn.Exec(context.Background(), statement)
	require.NoError(t, err, statement)
	return tag.RowsAffected()
}
