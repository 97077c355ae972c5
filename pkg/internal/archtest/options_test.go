package archtest

import (
	"slices"
	"strings"
	"testing"
)

// configReaders are the packages of pkg that may reach pkg/config, besides
// pkg/config itself: the generator of its reference, the process that
// loads it (pkg/run) and the store factory that maps the database block
// onto a dialect's options (pkg/store). Every other library package takes
// options of its own, which the wiring (services/...) fills.
var configReaders = []string{"pkg/config/internal/gendocs", "pkg/run", "pkg/store"}

func TestOnlyTheWiringReachesConfig(t *testing.T) {
	t.Parallel()
	var readers []string
	for _, v := range forbidden(t, module+"pkg/...", module+"pkg/config") {
		root, _, _ := strings.Cut(strings.TrimPrefix(v, module), " -> ")
		readers = append(readers, root)
		if !slices.Contains(configReaders, root) {
			t.Errorf("%s reaches the configuration; give it options of its own: %s", root, v)
		}
	}
	// An exception that no longer reaches the configuration leaves the
	// list, so the list says what is true.
	for _, r := range configReaders {
		if !slices.Contains(readers, r) {
			t.Errorf("%s no longer reaches pkg/config: remove it from configReaders", r)
		}
	}
}
