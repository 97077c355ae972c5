package schema

import (
	"fmt"
	"slices"
)

// Unquote returns the bare name of an identifier that Dialect.Quote
// quoted ("name" or [name]), for a lookup in the catalog.
func Unquote(quoted string) string {
	if len(quoted) >= 2 {
		return quoted[1 : len(quoted)-1]
	}
	return quoted
}

// HasIndexOn reports whether one of indexes (each the key columns of an
// index, in order) starts with the columns lead: the schema guard's test
// of whether a statement's index exists, whatever its name.
func HasIndexOn(indexes [][]string, lead ...string) bool {
	for _, cols := range indexes {
		if len(cols) >= len(lead) && slices.Equal(cols[:len(lead)], lead) {
			return true
		}
	}
	return false
}

// MissingTable is the schema guard's error for a table whose columns the
// catalog did not find (nil), or nil when both tables exist.
func (l Layout) MissingTable(inboxCols, outboxCols map[string]bool) error {
	const fix = "apply the migrations (database.migrate: true) or create it (see the custom tables guide)"
	switch {
	case inboxCols == nil:
		return fmt.Errorf("the inbox table %s does not exist: %s", l.I.Table, fix)
	case outboxCols == nil:
		return fmt.Errorf("the outbox table %s does not exist: %s", l.O.Table, fix)
	}
	return nil
}
