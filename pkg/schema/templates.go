package schema

import (
	"io/fs"
	"path"
	"sync"
)

// Templates are the statement files of one dialect (queries/<name>.sql,
// with the shared pieces in queries/partials.sql), read from the files
// the store embeds. The partials are parsed once, on first use. A
// Templates is safe for concurrent use.
type Templates struct {
	fsys     fs.FS
	dir      string
	partials func() (*Partials, error)
}

// NewTemplates reads the statements of dir in fsys.
func NewTemplates(fsys fs.FS, dir string) *Templates {
	t := &Templates{fsys: fsys, dir: dir}
	t.partials = sync.OnceValues(func() (*Partials, error) { return ParsePartials(t.text("partials")) })
	return t
}

// text returns one statement file. The file list is fixed when the binary
// is built, so a missing file is a programming fault.
func (t *Templates) text(name string) string {
	b, err := fs.ReadFile(t.fsys, path.Join(t.dir, name+".sql"))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Render renders the statement <name>.sql against data (the layout, or a
// value that embeds it), with the partials in reach.
func (t *Templates) Render(name string, data any) (string, error) {
	p, err := t.partials()
	if err != nil {
		return "", err
	}
	return p.Render(name, t.text(name), data)
}

// RenderAll renders each statement name of dst against data into its
// destination, and stops at the first error: how a store's constructor
// renders the statements it keeps.
func (t *Templates) RenderAll(data any, dst map[*string]string) error {
	for d, name := range dst {
		s, err := t.Render(name, data)
		if err != nil {
			return err
		}
		*d = s
	}
	return nil
}
