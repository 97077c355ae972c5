package queuebox

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed sql/*.sql
var sqlFiles embed.FS

// statement is one SQL file made ready for database/sql: the text with
// the names of the schema and the driver's parameter markers, and the
// parameter names in the order of their markers.
type statement struct {
	name   string
	text   string
	params []string
}

// args orders the named values as the statement's markers need them.
func (s statement) args(d Dialect, values map[string]any) ([]any, error) {
	out := make([]any, 0, len(s.params))
	for _, p := range s.params {
		v, ok := values[p]
		if !ok {
			return nil, fmt.Errorf("statement %s: no value for parameter %s", s.name, p)
		}
		if d == DialectSQLServer {
			v = namedArg(p, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// loadStatement reads an embedded file and renders it for the dialect and
// schema. The files use the bundled names; render replaces each identifier
// token that is a default name by the quoted mapped name. Comments are
// dropped, string literals and quoted identifiers kept as they are.
func loadStatement(d Dialect, s Schema, name string) (statement, error) {
	raw, err := sqlFiles.ReadFile("sql/" + d.file(name))
	if err != nil {
		return statement{}, fmt.Errorf("load statement %s: %w", name, err)
	}
	text, params, err := render(d, string(raw), s.quoted(d))
	if err != nil {
		return statement{}, fmt.Errorf("render statement %s: %w", name, err)
	}
	return statement{name: name, text: text, params: params}, nil
}

// render rewrites one SQL text. On PostgreSQL a parameter is written
// :name (a "::" cast is not one) and becomes $n, one number per distinct
// name; on SQL Server it is @name and stays, bound by name (a variable
// the batch declares is left alone too, and gets no value). For SQL Server
// the params list holds only the names of the contract.
func render(d Dialect, src string, names map[string]string) (string, []string, error) {
	var b strings.Builder
	b.Grow(len(src))
	var params []string
	index := map[string]int{}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				i = len(src)
			} else {
				i += end
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return "", nil, fmt.Errorf("unterminated comment")
			}
			i += end + 4
			b.WriteByte(' ')
		case c == '\'' || c == '"' || (c == '[' && d == DialectSQLServer):
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := i + 1
			for {
				k := strings.IndexByte(src[j:], closer)
				if k < 0 {
					return "", nil, fmt.Errorf("unterminated quote at byte %d", i)
				}
				j += k + 1
				if j < len(src) && src[j] == closer { // a doubled quote
					j++
					continue
				}
				break
			}
			b.WriteString(src[i:j])
			i = j
		case c == ':' && d == DialectPostgreSQL:
			if i+1 < len(src) && src[i+1] == ':' {
				b.WriteString("::")
				i += 2
				continue
			}
			j := i + 1
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte(c)
				i++
				continue
			}
			p := src[i+1 : j]
			n, ok := index[p]
			if !ok {
				params = append(params, p)
				n = len(params)
				index[p] = n
			}
			fmt.Fprintf(&b, "$%d", n)
			i = j
		case c == '@' && d == DialectSQLServer:
			j := i + 1
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			p := src[i+1 : j]
			if contractParams[p] && index[p] == 0 {
				params = append(params, p)
				index[p] = len(params)
			}
			b.WriteString(src[i:j])
			i = j
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			word := src[i:j]
			// A word that follows a digit run is part of a number (1e5)
			// and has no default name; a word is only replaced whole.
			if q, ok := names[word]; ok && !startsWithDigit(word) {
				b.WriteString(q)
			} else {
				b.WriteString(word)
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.TrimSpace(b.String()), params, nil
}

// contractParams are the parameter names of the SQL contract.
var contractParams = map[string]bool{
	"source": true, "batch": true, "lease_ms": true, "cand_limit": true,
	"id": true, "token": true, "delay_ms": true, "error": true,
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }
