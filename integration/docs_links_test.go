package integration

import (
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinksResolve checks every relative link of the README, of docs/
// and of docs/tutorials/: the file or folder it names exists in the
// repository.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	checked := 0
	for page, link := range docLinks(t) {
		target, _, _ := strings.Cut(link, "#")
		if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		_, err := os.Stat(filepath.Join(filepath.Dir(page), target))
		require.NoError(t, err, "%s links to %s", page, link)
		checked++
	}
	require.Greater(t, checked, 50, "links checked")
}

// docPages returns the pages whose links the docs tests check: the README,
// docs/*.md and docs/tutorials/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	require.NoError(t, err)
	tutorials, err := filepath.Glob(filepath.Join("..", "docs", "tutorials", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, tutorials)
	return append(append(pages, tutorials...), filepath.Join("..", "README.md"))
}

// docLinks yields the target of every Markdown link of the docPages, with
// the page that holds it.
func docLinks(t *testing.T) iter.Seq2[string, string] {
	t.Helper()
	return func(yield func(page, link string) bool) {
		for _, page := range docPages(t) {
			raw, err := os.ReadFile(page)
			require.NoError(t, err)
			for _, m := range markdownLink.FindAllStringSubmatch(string(raw), -1) {
				if !yield(page, m[1]) {
					return
				}
			}
		}
	}
}

// TestReadmeIsAFrontPage holds the README to its length and checks that
// its repository map names every top-level folder that git tracks.
func TestReadmeIsAFrontPage(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	readme := string(raw)
	require.LessOrEqual(t, strings.Count(readme, "\n"), 150, "README.md lines")
	require.Contains(t, readme, "make run ", "the two commands")
	require.Contains(t, readme, "make test ", "the two commands")

	out, err := exec.Command("git", "-C", "..", "ls-files").Output()
	require.NoError(t, err)
	folders := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if dir, _, nested := strings.Cut(f, "/"); nested {
			folders[dir] = true
		}
	}
	require.NotEmpty(t, folders)
	for dir := range folders {
		require.Contains(t, readme, "| `"+dir+"/` |", "the repository map of README.md lacks %s/", dir)
	}
}
