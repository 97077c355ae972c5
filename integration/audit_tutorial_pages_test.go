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
	Lang    string          // the first word of the info string: bash, sql, yaml, ...
	Tags    map[string]bool // the other words: norun, answer, sqlserver
	Text    string
	Heading string // the last "## " or "### " heading above the block
}

// sqlServer reports whether the block is written for SQL Server, which
// the tests do not run: its info string says "sql sqlserver".
func (b pageBlock) sqlServer() bool { return b.Tags["sqlserver"] }

// docsDir is the repository's documentation: the tests run from their
// module's folder, one level below the repository root, and read the
// checkout only.
var docsDir = filepath.Join("..", "docs")

// pageBlocks returns the fenced blocks of one page of docs/ (page is its
// path below docs/), in page order, so a walk-through runs the text that
// a reader copies.
func pageBlocks(t *testing.T, page string) []pageBlock {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(docsDir, filepath.FromSlash(page)))
	require.NoError(t, err, "the page docs/%s", page)
	return markdownBlocks(t, page, string(raw))
}

// markdownBlocks returns the fenced blocks of the Markdown text of page,
// in order.
func markdownBlocks(t *testing.T, page, raw string) []pageBlock {
	t.Helper()
	var out []pageBlock
	text, heading := raw, ""
	for {
		open := strings.Index(text, "```")
		if open < 0 {
			return out
		}
		heading = lastHeading(text[:open], heading)
		rest := text[open+3:]
		nl := strings.Index(rest, "\n")
		require.GreaterOrEqual(t, nl, 0)
		end := strings.Index(rest[nl+1:], "```")
		require.GreaterOrEqual(t, end, 0, "an unclosed block in %s", page)
		b := pageBlock{Tags: map[string]bool{}, Text: rest[nl+1 : nl+1+end], Heading: heading}
		if words := strings.Fields(rest[:nl]); len(words) > 0 {
			b.Lang = words[0]
			for _, w := range words[1:] {
				b.Tags[w] = true
			}
		}
		out = append(out, b)
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

// postgresSQL returns the sql blocks of a page that PostgreSQL runs: every
// one not marked sqlserver or norun.
func postgresSQL(t *testing.T, page string) []pageBlock {
	t.Helper()
	var out []pageBlock
	for _, b := range pageBlocks(t, page) {
		if b.Lang == "sql" && !b.sqlServer() && !b.Tags["norun"] {
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
		if b.Lang != lang || b.sqlServer() || !strings.HasPrefix(b.Heading, heading) {
			continue
		}
		for _, m := range markers {
			if !strings.Contains(b.Text, m) {
				continue next
			}
		}
		return b.Text
	}
	t.Fatalf("no %s block under %q with %q in docs/%s", lang, heading, markers, page)
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
