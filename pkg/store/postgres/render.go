package postgres

import (
	"embed"

	"github.com/alternayte/queuebox/pkg/schema"
)

//go:embed queries/*.sql
var queries embed.FS

// templates are the statement files of queries/.
var templates = schema.NewTemplates(queries, "queries")

// render renders the statement of queries/<name>.sql against data (the
// layout, or a value that embeds it), with the partials in reach.
func render(name string, data any) (string, error) { return templates.Render(name, data) }

// renderAll renders each name into its destination and stops at the
// first error. Every constructor of the store renders its statements
// this way, as the SQL Server store's do.
func renderAll(data any, dst map[*string]string) error {
	for d, name := range dst {
		s, err := render(name, data)
		if err != nil {
			return err
		}
		*d = s
	}
	return nil
}

// claimData is what a claim template renders from: the layout, and which
// class of rows comes first.
type claimData struct {
	schema.Layout
	KeyedFirst bool
}
