package ui_test

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin/ui"
)

func serve(t *testing.T, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	ui.Handler().ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

// TestContentTypes: every shipped file answers with its exact type, the
// policy that forbids other origins, and nosniff.
func TestContentTypes(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		".html": "text/html; charset=utf-8",
		".css":  "text/css; charset=utf-8",
		".js":   "text/javascript; charset=utf-8",
	}
	names, err := fs.Glob(ui.Files(), "*")
	require.NoError(t, err)
	require.Contains(t, names, "index.html")
	require.Contains(t, names, "app.js")
	require.Contains(t, names, "app.css")
	for _, name := range append(names, "") {
		t.Run("/"+name, func(t *testing.T) {
			t.Parallel()
			rec := serve(t, http.MethodGet, ui.Prefix+name)
			require.Equal(t, http.StatusOK, rec.Code)
			ext := path.Ext(name)
			if name == "" {
				ext = ".html"
			}
			require.Equal(t, want[ext], rec.Header().Get("Content-Type"))
			require.Equal(t, ui.CSP, rec.Header().Get("Content-Security-Policy"))
			require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
			require.NotEmpty(t, rec.Body.String())
		})
	}
}

// TestPolicy: the policy names no source but the page's own origin, and
// denies everything it does not name.
func TestPolicy(t *testing.T) {
	t.Parallel()
	require.Contains(t, ui.CSP, "default-src 'none'")
	require.Contains(t, ui.CSP, "frame-ancestors 'none'")
	for _, directive := range strings.Split(ui.CSP, ";") {
		for _, source := range strings.Fields(directive)[1:] {
			require.Contains(t, []string{"'self'", "'none'", "data:"}, source, directive)
		}
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, target string
		code           int
	}{
		{http.MethodGet, ui.Prefix + "missing.js", http.StatusNotFound},
		{http.MethodGet, ui.Prefix + "../ui.go", http.StatusNotFound},
		{http.MethodGet, "/elsewhere/app.js", http.StatusNotFound},
		{http.MethodPost, ui.Prefix, http.StatusMethodNotAllowed},
		{http.MethodHead, ui.Prefix + "app.css", http.StatusOK},
	} {
		rec := serve(t, tc.method, tc.target)
		require.Equal(t, tc.code, rec.Code, "%s %s", tc.method, tc.target)
		require.Equal(t, ui.CSP, rec.Header().Get("Content-Security-Policy"), "every answer carries the policy")
	}
	require.Empty(t, serve(t, http.MethodHead, ui.Prefix+"app.css").Body.String())
}

// external matches what would make the browser reach another host: a URL
// with a scheme or a protocol-relative one, in any file.
var external = regexp.MustCompile(`(?i)\b(https?|wss?|ftp):|["'(=]\s*//[^/]`)

// svgNamespace is the name of the SVG namespace, which chart.js passes to
// createElementNS: it has the form of a URL, but no browser fetches it.
const svgNamespace = "'http://www.w3.org/2000/svg'"

// referencesAnotherHost reports whether a line names another host, the
// SVG namespace aside.
func referencesAnotherHost(line string) bool {
	return external.MatchString(strings.ReplaceAll(line, svgNamespace, "''"))
}

// TestNoExternalReference: no file names another host, so the UI works
// with the network off (the policy would block it anyway; this catches it
// before a reader sees a broken page).
func TestNoExternalReference(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(ui.Files(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(ui.Files(), name)
		require.NoError(t, err)
		for i, line := range strings.Split(string(body), "\n") {
			require.False(t, referencesAnotherHost(line), "%s:%d references another host: %s", name, i+1, line)
		}
		return nil
	})
	require.NoError(t, err)
}

func TestExternalPatternCatches(t *testing.T) {
	t.Parallel()
	for _, line := range []string{`<script src="https://cdn.example/x.js">`, `@import url(//fonts.example/css);`, `fetch('http://x')`} {
		require.True(t, referencesAnotherHost(line), line)
	}
	require.True(t, referencesAnotherHost(`fetch('http://www.w3.org/2000/svg/x.js')`), "only the namespace itself is exempt")
	for _, line := range []string{"const svgNS = " + svgNamespace + ";", `// a comment`, `the state allows: it`, `fetch('../messages')`, `const a = b // note`} {
		require.False(t, referencesAnotherHost(line), line)
	}
}

// TestCredentialFieldsAreNotOfferedForSaving: every password field of the
// pages sets autocomplete="off", so a browser's password manager is not
// invited to keep the admin token.
func TestCredentialFieldsAreNotOfferedForSaving(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(ui.Files(), "*.js")
	require.NoError(t, err)
	password := regexp.MustCompile(`\{[^{}]*type: 'password'[^{}]*\}`)
	found := 0
	for _, name := range names {
		text, err := fs.ReadFile(ui.Files(), name)
		require.NoError(t, err)
		for _, attrs := range password.FindAllString(string(text), -1) {
			found++
			require.Contains(t, attrs, "autocomplete: 'off'", "%s: %s", name, attrs)
		}
	}
	require.Positive(t, found, "the sign-in form has a password field")
}
