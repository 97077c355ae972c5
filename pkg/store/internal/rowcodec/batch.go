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

// Assignments are the columns of an Assign statement: one entry per
// routed row in IDs, Destinations, Tokens and Reasons, and one per added
// delivery of a fan-out in Origins and Copies.
type Assignments struct {
	IDs, Destinations, Tokens, Reasons []string
	Origins, Copies                    []string
}

// SplitAssignments turns assignments into the columns of the Assign
// statement of both dialects. An assignment with neither a destination
// nor a dead reason routes nothing and is left out.
func SplitAssignments(assignments []queuebox.Assignment) Assignments {
	c := Assignments{Origins: []string{}, Copies: []string{}}
	for _, a := range assignments {
		var first string
		switch {
		case len(a.Destinations) > 0:
			first = a.Destinations[0]
		case a.DeadReason == "":
			continue
		}
		c.IDs, c.Destinations = append(c.IDs, a.ID), append(c.Destinations, first)
		c.Tokens, c.Reasons = append(c.Tokens, a.Token), append(c.Reasons, a.DeadReason)
		for _, d := range a.Destinations[min(1, len(a.Destinations)):] {
			c.Origins, c.Copies = append(c.Origins, a.ID), append(c.Copies, d)
		}
	}
	return c
}
