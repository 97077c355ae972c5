package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

var (
	markdownHeading = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`)
	htmlAnchor      = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	fencedBlock     = regexp.MustCompile("(?ms)^```.*?^```")
)

// headingSlug is the fragment a Markdown renderer of the GitHub kind gives
// a heading: lower case, every character but a letter, a digit, a space,
// a hyphen or an underscore dropped, and each space a hyphen.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// pageAnchors returns the fragments a page's headings and HTML anchors
// define; a heading repeated on the page gets -1, -2 and so on, as the
// renderer numbers them. Headings inside fenced code are not headings.
func pageAnchors(page []byte) map[string]bool {
	text := fencedBlock.ReplaceAllString(string(page), "")
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range markdownHeading.FindAllStringSubmatch(text, -1) {
		slug := headingSlug(m[1])
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

func TestHeadingSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Round four: where it stands":                                      "round-four-where-it-stands",
		"Round four, a fifth invocation: the machine's share per scenario": "round-four-a-fifth-invocation-the-machines-share-per-scenario",
		"Partition rows (`-scenarios partitions`)":                         "partition-rows--scenarios-partitions",
		"The hand-written baselines (issue 42)":                            "the-hand-written-baselines-issue-42",
		"Soak (`make soak`)":                                               "soak-make-soak",
	} {
		require.Equal(t, want, headingSlug(heading), heading)
	}
}

// TestDocsAnchorsResolve checks the fragment of every link between the
// README and the pages of docs/: the page it names (or the page itself)
// has a heading or an HTML anchor of that name. A renamed heading
// otherwise leaves links that open the page at its top.
func TestDocsAnchorsResolve(t *testing.T) {
	t.Parallel()
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) map[string]bool {
		if a, ok := anchorsOf[path]; ok {
			return a
		}
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		anchorsOf[path] = pageAnchors(raw)
		return anchorsOf[path]
	}
	checked := 0
	for page, link := range docLinks(t) {
		target, fragment, ok := strings.Cut(link, "#")
		if !ok || fragment == "" || strings.Contains(target, "://") {
			continue
		}
		path := page
		if target != "" {
			path = filepath.Join(filepath.Dir(page), target)
		}
		if !strings.HasSuffix(path, ".md") {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue // TestDocsLinksResolve reports a missing page
		}
		require.True(t, anchors(path)[fragment], "%s links to %s: %s has no heading or anchor %q", page, link, path, fragment)
		checked++
	}
	require.Greater(t, checked, 50, "anchors checked")
}
