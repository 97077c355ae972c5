// Package rowcodec turns the text that a store reads from either dialect
// into domain values, and domain values into the parameters of the
// statements that both dialects share the shape of. It holds no SQL, so
// the PostgreSQL and SQL Server stores decode a row the same way.
package rowcodec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// CompactJSON drops the blanks of a JSON text ({"a": 1} as PostgreSQL's
// jsonb prints it, or as an application wrote it into an NVARCHAR
// column), so a destination receives a compact body. A column that holds
// something other than JSON passes unchanged.
func CompactJSON(text string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return []byte(text)
	}
	return b.Bytes()
}

// DecodeHeaders reads the headers column: a JSON object whose values are
// strings. A non-string value keeps its JSON text, so nothing is dropped.
// A JSON null counts as no headers.
func DecodeHeaders(text string) (map[string]string, error) {
	// Most rows have no headers, and the claim decodes every row: the
	// empty object and null skip the JSON decoder and its allocations.
	if t := strings.TrimSpace(text); t == "{}" || t == "null" {
		return map[string]string{}, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, fmt.Errorf("the headers column must hold a JSON object, not %s", jsonKind(text))
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			out[k] = s
			continue
		}
		out[k] = string(v)
	}
	return out, nil
}

// jsonKind names the kind of a JSON document from its first character.
func jsonKind(text string) string {
	switch t := strings.TrimSpace(text); {
	case strings.HasPrefix(t, "["):
		return "an array"
	case strings.HasPrefix(t, `"`):
		return "a string"
	case t == "true" || t == "false":
		return "a boolean"
	default:
		return "a number"
	}
}

// Seconds turns an age read from the database into a duration; a row
// stamped in the database's future counts as age zero.
func Seconds(s float64) time.Duration {
	return max(time.Duration(s*float64(time.Second)), 0)
}

// SplitLeases returns the ids and the tokens of leases, in their order.
func SplitLeases(leases []queuebox.Lease) (ids, tokens []string) {
	ids, tokens = make([]string, len(leases)), make([]string, len(leases))
	for i, l := range leases {
		ids[i], tokens[i] = l.ID, l.Token
	}
	return ids, tokens
}

// InsertArgs orders the parameters of the inbox insert, the same eleven
// in both dialects: id (nil lets the database choose), source,
// idempotency key, aggregate id, event type, payload text, headers text
// (a JSON object; nil headers store {}), correlation id (nil when empty),
// consumption (push when empty), state (pending when empty), last error.
func InsertArgs(row queuebox.ReceivedRow) []any {
	args := make([]any, insertColumnCount)
	for i, c := range InsertCells(row) {
		if !c.Null {
			args[i] = c.Text
		}
	}
	return args
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FoldGroups sums the groups of one name and destination, for a statement
// that returns a pair more than once: their counts, and the oldest age of
// them, in the order the pairs first came.
func FoldGroups(groups []queuebox.Group) []queuebox.Group {
	var out []queuebox.Group
	type place struct{ name, destination string }
	at := map[place]int{}
	for _, g := range groups {
		i, ok := at[place{g.Name, g.Destination}]
		if !ok {
			at[place{g.Name, g.Destination}] = len(out)
			out = append(out, g)
			continue
		}
		out[i].Count += g.Count
		out[i].OldestAge = max(out[i].OldestAge, g.OldestAge)
	}
	return out
}
