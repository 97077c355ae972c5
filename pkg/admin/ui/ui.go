// Package ui serves the operator's web workbench: static HTML, CSS and
// JavaScript embedded in the binary, mounted under /admin/ui/ beside the
// admin JSON routes. The files hold no secret and call nothing but those
// routes, so they are served without credentials; the page asks the
// operator for the admin or viewer credential and sends it on every call.
//
// Every answer carries a Content-Security-Policy that lets the page load
// and fetch from its own origin only, so the UI works with the network off
// and a hostile payload rendered as text cannot pull in a script.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// Prefix is the path under which Handler expects its requests.
const Prefix = "/admin/ui/"

// CSP is the Content-Security-Policy of every answer: the origin itself
// for scripts, styles and fetches, nothing else, no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

//go:embed static
var static embed.FS

// contentTypes fixes the type of every kind of file we ship, so the answer
// does not depend on the mime tables of the host.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
}

// Files returns the embedded files, rooted at the UI's top folder. Tests
// read it to check what the binary ships.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the folder is embedded above; absent only in a broken build
	}
	return sub
}

// Handler serves the embedded files for GET and HEAD requests whose path
// starts with Prefix; the bare prefix serves index.html. Any other method
// answers 405 and an unknown file 404. It is safe for concurrent use.
func Handler() http.Handler {
	files := Files()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// The files change with the binary; a stale cached script would
		// call routes an upgraded server no longer answers.
		h.Set("Cache-Control", "no-cache")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, Prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if name == "" {
			name = "index.html"
		}
		typ, known := contentTypes[path.Ext(name)]
		body, err := fs.ReadFile(files, name)
		if !known || err != nil || !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		h.Set("Content-Type", typ)
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}
