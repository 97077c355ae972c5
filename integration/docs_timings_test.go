package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// duration matches a figure of time in prose or a table: "6 to 10
// minutes", "1½ hours", "19 min", "42 s".
var duration = regexp.MustCompile(`(?i)\d[\d½–-]*\s*(to \d+\s*)?(minutes?|min\b|hours?|seconds?|s\b)`)

// TestTimingsLiveInOnePlace: how long the make targets take is written
// once, in docs/development.md, where each figure says when and under
// what load it was measured; CONTRIBUTING.md links there and repeats no
// figure, so the two pages cannot contradict each other again.
func TestTimingsLiveInOnePlace(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		raw, err := os.ReadFile(filepath.Join("..", name))
		require.NoError(t, err)
		return string(raw)
	}
	contributing := read("CONTRIBUTING.md")
	require.True(t, strings.Contains(contributing, "(docs/development.md#how-long-things-take)"),
		"CONTRIBUTING.md links to the timings of docs/development.md")
	_, section, ok := strings.Cut(contributing, "## How long it takes")
	require.True(t, ok, "CONTRIBUTING.md keeps its heading, as a pointer")
	section, _, _ = strings.Cut(section, "\n## ")
	require.Empty(t, duration.FindAllString(section, -1), "CONTRIBUTING.md names no duration; docs/development.md does")

	dev := read("docs/development.md")
	_, table, ok := strings.Cut(dev, "\n## How long things take\n")
	require.True(t, ok, "docs/development.md has the section CONTRIBUTING.md links to")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, target := range []string{"`make test`", "first `make run`", "`make lint`", "`make bench`", "`make chaos`"} {
		row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(target) + ` \|.*\| (.*)\|$`).FindStringSubmatch(table)
		require.NotNil(t, row, "a row for %s", target)
		require.Regexp(t, `20\d\d-\d\d-\d\d`, row[1], "the row of %s says when it was measured", target)
	}
	require.False(t, strings.Contains(dev, "not yet recorded"), "every figure is a measured one")
}
