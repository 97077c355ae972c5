package sqlserver

import (
	"embed"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/schema"
)

//go:embed queries/*.sql
var queries embed.FS

func query(name string) string {
	b, err := queries.ReadFile("queries/" + name + ".sql")
	if err != nil {
		panic(err) // the file list is fixed at build time
	}
	return string(b)
}

// partials are the shared pieces of the statements (queries/partials.sql),
// parsed once.
var partials = sync.OnceValues(func() (*schema.Partials, error) {
	return schema.ParsePartials(query("partials"))
})

// render renders the statement of queries/<name>.sql against data (the
// layout, or a value that embeds it), with the partials in reach.
func render(name string, data any) (string, error) {
	p, err := partials()
	if err != nil {
		return "", err
	}
	return p.Render(name, query(name), data)
}

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

// Option configures a store at construction.
type Option func(*options)

type options struct {
	now func() time.Time
}

// WithClock makes the lease statements (claims, renewals, outcome and
// forward writes, reclaims) read the time from now instead of
// SYSUTCDATETIME(): a test moves it forward to see leases expire without
// waiting. nil, the default and the only production setting, keeps the
// database clock. now must be safe for concurrent use; the store calls it
// once per statement.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// clock is the nullable clock parameter of a lease statement: NULL, so
// the statement reads SYSUTCDATETIME(), unless a clock is set. The time
// goes in UTC, because the statements cast it to DATETIME2, which keeps
// the wall time and drops the offset.
func (o options) clock() any {
	if o.now == nil {
		return nil
	}
	return o.now().UTC()
}
