package postgres

import "github.com/alternayte/queuebox/pkg/schema"

// claimData is what a claim template renders from: the layout, and which
// class of rows comes first.
type claimData struct {
	schema.Layout
	KeyedFirst bool
}
