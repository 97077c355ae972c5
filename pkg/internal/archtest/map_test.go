package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mapPath matches a package path at the start of a line of the
// architecture map's code blocks.
var mapPath = regexp.MustCompile(`(?m)^((?:pkg|services)/[a-z0-9_/]+)\s`)

// TestArchitectureMapListsEveryPackage keeps docs/architecture.md true:
// every package of the pkg and services modules has its line, and every
// line names a package that exists.
func TestArchitectureMapListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatalf("read the architecture map: %v", err)
	}
	listed := map[string]bool{}
	for _, m := range mapPath.FindAllStringSubmatch(string(doc), -1) {
		listed[m[1]] = true
	}
	exists := map[string]bool{}
	for _, p := range goList(t, module+"pkg/...", module+"services/...") {
		exists[strings.TrimPrefix(p.ImportPath, module)] = true
	}
	for p := range exists {
		if !listed[p] {
			t.Errorf("docs/architecture.md has no line for the package %s", p)
		}
	}
	for p := range listed {
		if !exists[p] {
			t.Errorf("docs/architecture.md names %s, which is no package", p)
		}
	}
}
