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

// renderAll is templates.RenderAll: each constructor of the store
// renders the statements it keeps this way.
func renderAll(data any, dst map[*string]string) error { return templates.RenderAll(data, dst) }

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
