package schema

import "slices"

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
