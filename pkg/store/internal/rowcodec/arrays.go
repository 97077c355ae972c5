package rowcodec

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/jsonata/jsonesc"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// insertColumnCount is the number of parameters of the inbox insert.
const insertColumnCount = 11

// Cell is one parameter of the inbox insert for one row: Text, or SQL
// NULL when Null.
type Cell struct {
	Text string
	Null bool
}

// Opt is the cell as a nullable text: nil for NULL.
func (c Cell) Opt() *string {
	if c.Null {
		return nil
	}
	return &c.Text
}

// InsertCells is InsertArgs without the boxing into []any: the eleven
// cells of row in the order that InsertArgs documents.
func InsertCells(row queuebox.ReceivedRow) [insertColumnCount]Cell {
	var c [insertColumnCount]Cell
	opt := func(p *string) Cell {
		if p == nil {
			return Cell{Null: true}
		}
		return Cell{Text: *p}
	}
	c[0] = Cell{Text: row.ID, Null: row.ID == ""}
	c[1], c[2] = Cell{Text: row.Source}, Cell{Text: row.IdempotencyKey}
	c[3], c[4] = opt(row.AggregateID), opt(row.EventType)
	c[5], c[6] = Cell{Text: string(row.Payload)}, Cell{Text: headersJSON(row.Headers)}
	c[7] = Cell{Text: row.CorrelationID, Null: row.CorrelationID == ""}
	c[8] = Cell{Text: orDefault(row.Consumption, queuebox.ConsumptionPush)}
	c[9] = Cell{Text: orDefault(string(row.State), string(queuebox.StatePending))}
	c[10] = opt(row.LastError)
	return c
}

// InsertArrays turns rows into the eleven parameters of the PostgreSQL
// batch insert, one array literal per column ({"a","b",NULL}) with one
// element per row in the order of rows, for $n::text[] and $1::uuid[].
// Every element is quoted, so any text is taken as it is; NULL stands
// for an absent value. Every row must have an id (see WithIDs).
//
// Why literals and not Go slices: pgx encodes a slice element by element
// through a boxed value and an encode plan each, which made these
// parameters a tenth of ingest's CPU under group commit; a literal is one
// string to send. The server checks the text as before: a byte sequence
// that is not UTF-8, or a NUL, fails the statement as a refused value.
func InsertArrays(rows []queuebox.ReceivedRow) []any {
	cells := make([][insertColumnCount]Cell, len(rows))
	size := 0
	for r, row := range rows {
		cells[r] = InsertCells(row)
		for _, c := range cells[r] {
			size += len(c.Text) + 8
		}
	}
	// One buffer holds every literal, and one string conversion serves
	// them all: each parameter is a slice of it.
	buf := make([]byte, 0, size+2*insertColumnCount)
	var ends [insertColumnCount]int
	for i := range insertColumnCount {
		buf = append(buf, '{')
		for r := range cells {
			if r > 0 {
				buf = append(buf, ',')
			}
			buf = appendArrayElement(buf, cells[r][i])
		}
		buf = append(buf, '}')
		ends[i] = len(buf)
	}
	all := string(buf)
	out := make([]any, insertColumnCount)
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

// ArrayLiteral writes texts as a PostgreSQL array literal, each element
// quoted as InsertArrays quotes it; nil stays nil (SQL NULL). A literal is
// one string for the driver to send, where a []string parameter costs it
// an encode plan and a boxed value per element.
func ArrayLiteral(texts []string) any {
	if texts == nil {
		return nil
	}
	size := 2
	for _, t := range texts {
		size += len(t) + 3
	}
	buf := append(make([]byte, 0, size), '{')
	for i, t := range texts {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendArrayElement(buf, Cell{Text: t})
	}
	return string(append(buf, '}'))
}

// IntArrayLiteral is ArrayLiteral for integers.
func IntArrayLiteral(ints []int64) any {
	if ints == nil {
		return nil
	}
	buf := append(make([]byte, 0, 2+len(ints)*8), '{')
	for i, n := range ints {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, n, 10)
	}
	return string(append(buf, '}'))
}

// appendArrayElement appends c as an element of an array literal: NULL,
// or the text in double quotes with each " and \ escaped by a backslash.
func appendArrayElement(buf []byte, c Cell) []byte {
	if c.Null {
		return append(buf, "NULL"...)
	}
	buf = append(buf, '"')
	for i := 0; i < len(c.Text); i++ {
		if b := c.Text[i]; b == '"' || b == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, c.Text[i])
	}
	return append(buf, '"')
}

// headersJSON is the headers column of a row: the JSON object of
// headers, keys in order, {} for none. It writes what encoding/json
// writes for a map[string]string (the HTML characters and U+2028/2029
// escaped, a byte that is not UTF-8 as U+FFFD) without its reflection,
// which cost ingest a map walk and an allocation per entry.
func headersJSON(headers map[string]string) string {
	if len(headers) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(headers))
	size := 2
	for k, v := range headers {
		keys = append(keys, k)
		size += len(k) + len(v) + 6
	}
	slices.Sort(keys)
	buf := make([]byte, 0, size)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = appendJSONString(buf, headers[k])
	}
	return string(append(buf, '}'))
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it by default.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			buf = jsonesc.AppendASCII(append(buf, s[start:i]...), b)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', jsonesc.HexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
