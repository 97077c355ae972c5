package config

import (
	"errors"
	"sort"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

// FieldError is one configuration problem. It names the YAML path of the
// key and the QUEUEBOX_ variable that sets it, so an operator can fix the
// problem in either source. Msg never holds a secret value.
type FieldError = yamlenv.FieldError

func newFieldError(path keyPath, format string, args ...any) *FieldError {
	return schema.Error(yamlenv.Path(path), format, args...)
}

// keyPath is the path of a key as segments (see yamlenv.Path), with the
// short method names of the validator.
type keyPath yamlenv.Path

// key returns the path of a child key (or of a chain of keys), sharing no
// backing array with p.
func (p keyPath) key(names ...string) keyPath { return keyPath(yamlenv.Path(p).Key(names...)) }

func (p keyPath) index(i int) keyPath { return keyPath(yamlenv.Path(p).Index(i)) }

// String renders the YAML path, for example sources.orders.topics[0].
func (p keyPath) String() string { return yamlenv.Path(p).String() }

// env renders the variable name of the path.
func (p keyPath) env() string { return schema.Var(yamlenv.Path(p)) }

// ref renders "path (VARIABLE)" for a message that names a second key.
func (p keyPath) ref() string { return p.String() + " (" + p.env() + ")" }

// problems collects the errors of one load or validation pass.
type problems struct {
	errs []error
}

func (ps *problems) add(path keyPath, format string, args ...any) {
	ps.errs = append(ps.errs, newFieldError(path, format, args...))
}

// required reports a blank string.
func (ps *problems) required(path keyPath, v string) bool {
	if strings.TrimSpace(v) == "" {
		ps.add(path, "required, but no source sets it")
		return false
	}
	return true
}

// positive reports a value that is not above 0.
func (ps *problems) positive(path keyPath, v int64) {
	if v <= 0 {
		ps.add(path, "must be above 0, got %d", v)
	}
}

// nonNegative reports a value below 0.
func (ps *problems) nonNegative(path keyPath, v int64) {
	if v < 0 {
		ps.add(path, "must not be negative, got %d", v)
	}
}

// port reports a value outside 1..65535.
func (ps *problems) port(path keyPath, v int) {
	if v < 1 || v > 65535 {
		ps.add(path, "must be a port from 1 to 65535, got %d", v)
	}
}

// oneOf reports a value that is not one of allowed, compared exactly.
func (ps *problems) oneOf(path keyPath, v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	ps.add(path, "must be one of %s (in this letter case), got %q", strings.Join(allowed, ", "), v)
	return false
}

// joinSorted joins errs with errors.Join after sorting them by their text,
// so the same configuration always prints the same message.
func joinSorted(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	sorted := append([]error(nil), errs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Error() < sorted[j].Error() })
	out := sorted[:0]
	for i, e := range sorted {
		if i > 0 && e.Error() == sorted[i-1].Error() {
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// FormatError renders err on one line: the problems of a joined error are
// separated by "; ". A binary prints it as its one-line start failure.
func FormatError(err error) string {
	if err == nil {
		return ""
	}
	var parts []string
	collect(err, &parts)
	return strings.Join(parts, "; ")
}

func collect(err error, parts *[]string) {
	if multi, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range multi.Unwrap() {
			collect(e, parts)
		}
		return
	}
	// A wrapped joined error still holds one problem per line.
	text := strings.ReplaceAll(err.Error(), "\r\n", "\n")
	*parts = append(*parts, strings.ReplaceAll(text, "\n", "; "))
}
