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
