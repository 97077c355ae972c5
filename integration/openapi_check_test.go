package integration

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/require"
)

// openAPIFile is the HTTP API document, relative to this package.
var openAPIFile = filepath.Join("..", "docs", "openapi.yaml")

// loadOpenAPI loads docs/openapi.yaml and checks it as an OpenAPI 3.1
// document.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(openAPIFile)
	require.NoError(t, err)
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.True(t, doc.IsOpenAPI31OrLater())
	require.NoError(t, doc.Validate(context.Background()))
	return doc
}

// apiCheck sends requests to running binaries and holds every request
// and answer to the document. Its router serves the document's paths on
// the given base URLs (the data and management ports of the process).
type apiCheck struct {
	t      *testing.T
	router routers.Router
}

func newAPICheck(t *testing.T, baseURLs ...string) *apiCheck {
	t.Helper()
	doc := loadOpenAPI(t)
	doc.Servers = nil
	for _, u := range baseURLs {
		doc.Servers = append(doc.Servers, &openapi3.Server{URL: u})
	}
	router, err := gorillamux.NewRouter(doc)
	require.NoError(t, err)
	return &apiCheck{t: t, router: router}
}

// call is one request of a check.
type call struct {
	method, url string
	body        []byte
	header      http.Header
	// malformed marks a request that breaks the document on purpose (a
	// body that is not JSON, a header block above the cap): only its
	// answer is checked.
	malformed bool
	// chunked sends the body without a Content-Length.
	chunked bool
}

// do sends c, checks the request (unless malformed) and the answer
// against the document, and returns the answer with its body read.
func (a *apiCheck) do(c call) (*http.Response, []byte) {
	t := a.t
	t.Helper()
	send := a.request(c)
	resp, err := http.DefaultClient.Do(send)
	require.NoError(t, err, "%s %s", c.method, c.url)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)

	check := a.request(c)
	route, params, err := a.router.FindRoute(check)
	require.NoError(t, err, "the document has no operation for %s %s", c.method, c.url)
	in := &openapi3filter.RequestValidationInput{Request: check, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}}
	if !c.malformed {
		require.NoError(t, openapi3filter.ValidateRequest(context.Background(), in), "request %s %s", c.method, c.url)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode,
		Header: resp.Header, Options: in.Options}
	out.SetBodyBytes(body)
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), out),
		"answer %d of %s %s: %s", resp.StatusCode, c.method, c.url, body)
	return resp, body
}

// request builds a fresh request of c: one is sent, another checked.
func (a *apiCheck) request(c call) *http.Request {
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
		if c.chunked {
			body = io.MultiReader(body) // hides the length from net/http
		}
	}
	req, err := http.NewRequest(c.method, c.url, body)
	require.NoError(a.t, err)
	for k, v := range c.header {
		req.Header[k] = v
	}
	if c.body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// TestOpenAPIDocumentLoadsAsOpenAPI31 loads docs/openapi.yaml with the
// validator's loader and validates it as an OpenAPI 3.1 document.
func TestOpenAPIDocumentLoadsAsOpenAPI31(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	for _, p := range []string{"/", "/inbox/{sourcePath}", "/health/live", "/health/ready", "/health", "/metrics",
		"/admin/replay", "/admin/transform/test"} {
		require.NotNil(t, doc.Paths.Value(p), "path %s", p)
	}
}
