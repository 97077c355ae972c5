package sqlserver

import (
	"embed"
	"time"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/internal/leaseclock"
)

//go:embed queries/*.sql
var queries embed.FS

// templates are the statement files of queries/.
var templates = schema.NewTemplates(queries, "queries")

// render renders the statement of queries/<name>.sql against data (the
// layout, or a value that embeds it), with the partials in reach.
func render(name string, data any) (string, error) { return templates.Render(name, data) }

// renderAll renders each name into its destination and stops at the
// first error.
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

// Option configures a store at construction (see WithClock).
type Option = leaseclock.Option

// WithClock makes the lease statements read the time from now instead of
// the database clock; nil keeps the database clock (see
// leaseclock.WithClock).
func WithClock(now func() time.Time) Option { return leaseclock.WithClock(now) }
