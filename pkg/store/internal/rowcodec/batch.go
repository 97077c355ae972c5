package rowcodec

import (
	"strings"

	"github.com/google/uuid"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// WithIDs returns rows with an id in each: a row without one gets a UUID
// version 7, so the stores can tell the rows of a batch apart by id. It
// does not change rows.
func WithIDs(rows []queuebox.ReceivedRow) []queuebox.ReceivedRow {
	out := append([]queuebox.ReceivedRow(nil), rows...)
	for i := range out {
		if out[i].ID == "" {
			out[i].ID = uuid.Must(uuid.NewV7()).String()
		}
	}
	return out
}

// InsertColumns turns rows into the eleven columns of InsertArgs, one
// slice per column with one entry per row in the order of rows: text
// columns as []string, nullable ones as []*string. Every row must have
// an id (see WithIDs).
func InsertColumns(rows []queuebox.ReceivedRow) ([]any, error) {
	n := len(rows)
	texts := make([][]string, 11)
	nullable := make([][]*string, 11)
	for c := range texts {
		texts[c], nullable[c] = make([]string, 0, n), make([]*string, 0, n)
	}
	for _, row := range rows {
		args, err := InsertArgs(row)
		if err != nil {
			return nil, err
		}
		for c, a := range args {
			switch v := a.(type) {
			case string:
				texts[c] = append(texts[c], v)
				nullable[c] = append(nullable[c], &v)
			case *string:
				nullable[c] = append(nullable[c], v)
			default: // nil: an id or a correlation id left empty
				nullable[c] = append(nullable[c], nil)
			}
		}
	}
	cols := make([]any, 11)
	for c := range cols {
		cols[c] = nullable[c]
		if len(texts[c]) == n {
			cols[c] = texts[c]
		}
	}
	return cols, nil
}

// ResultsByID turns the ids that a batch insert returned into one result
// per row of rows: a row whose id came back is stored, any other is a
// duplicate. stored holds every id that the caller knows to be its own
// (a confirming read after a retried try); nil when there is none.
func ResultsByID(rows []queuebox.ReceivedRow, returned []string, stored map[string]bool) []queuebox.InsertResult {
	got := make(map[string]bool, len(returned))
	for _, id := range returned {
		got[strings.ToLower(id)] = true
	}
	out := make([]queuebox.InsertResult, len(rows))
	for i, row := range rows {
		id := strings.ToLower(row.ID)
		if got[id] || stored[id] {
			out[i] = queuebox.InsertResult{ID: id, Inserted: true}
		}
	}
	return out
}
