// Package admin serves the admin routes: POST /admin/replay (and its
// jobs), POST /admin/transform/test and the workbench's message routes.
// They exist only when admin.enabled is true, and every request passes
// admin.auth (or, for a GET, admin.viewer) unless admin.insecure is true.
package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/admin/ui"
	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/httpbody"
)

// guard reads the body under admin.maxPayloadBytes and checks the
// credentials on the raw body and the request (see bodySigned for what an
// HMAC signs). fail renders an error body in the shape of the route.
type guard struct {
	limit    int64
	verifier *auth.Verifier
	viewer   *auth.Verifier
	insecure bool
	now      func() time.Time
}

// The names of the two credentials, as log lines and /admin/whoami give
// them: the configuration key of each.
const (
	CredentialAdmin    = "admin.auth"
	CredentialViewer   = "admin.viewer"
	CredentialInsecure = "admin.insecure"
)

// newGuard builds the guard of opts, which withDefaults has checked.
func newGuard(opts Options) *guard {
	g := &guard{limit: opts.MaxPayloadBytes, insecure: opts.Insecure, now: time.Now}
	// admin.insecure lets requests in without credentials, whether or not
	// an admin.auth block is also set.
	if !opts.Insecure {
		g.verifier, g.viewer = opts.Auth, opts.Viewer
	}
	return g
}

// write is read for a route that changes rows: only the admin credential
// passes; the viewer's gets 403.
func (g *guard) write(c echo.Context, fail func(code int, msg string) error) ([]byte, string, bool, error) {
	body, who, ok, err := g.read(c, fail)
	if ok && who == CredentialViewer {
		return nil, who, false, fail(http.StatusForbidden, "The viewer credential (admin.viewer) may only read")
	}
	return body, who, ok, err
}

// read returns the body of an authenticated request and the name of the
// credential that passed, or writes the 413 or 401 answer through fail
// and returns ok false.
//
// Bearer and api-key credentials are checked before the body is read, so
// an unauthenticated caller costs no body read; hmac signs the body and is
// checked after it. An answer given before the body was read to its end
// (that early 401, or a 413) closes the connection, so a caller that never
// finishes its body cannot hold it while net/http drains the rest.
func (g *guard) read(c echo.Context, fail func(code int, msg string) error) ([]byte, string, bool, error) {
	if g.verifier == nil {
		body, ok, err := g.body(c, fail)
		return body, CredentialInsecure, ok, err
	}
	unread := func(code int, msg string) error {
		if c.Request().ContentLength != 0 {
			defer httpbody.CloseUnread(c.Response())()
		}
		return fail(code, msg)
	}
	early := !g.verifier.NeedsBody() && (g.viewer == nil || !g.viewer.NeedsBody())
	who := ""
	if early {
		var ok bool
		var err error
		if who, ok, err = g.verify(c, nil, unread); !ok {
			return nil, "", false, err
		}
	}
	body, ok, err := g.body(c, unread)
	if !ok {
		return nil, "", false, err
	}
	if !early {
		if who, ok, err = g.verify(c, body, fail); !ok {
			return nil, "", false, err
		}
	}
	return body, who, true, nil
}

// body reads the request body under the limit.
func (g *guard) body(c echo.Context, fail func(code int, msg string) error) ([]byte, bool, error) {
	body, err := httpbody.Read(c.Request(), g.limit)
	if err != nil {
		var tooLarge *httpbody.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, false, fail(http.StatusRequestEntityTooLarge, tooLarge.Error())
		}
		return nil, false, fail(http.StatusBadRequest, "Invalid request: "+err.Error())
	}
	return body, true, nil
}

// verify returns the name of the credential that passes, admin first, or
// writes the 401 answer of the admin check through fail.
func (g *guard) verify(c echo.Context, body []byte, fail func(code int, msg string) error) (string, bool, error) {
	check := func(v *auth.Verifier) error { return v.VerifyRequest(c.Request(), body, g.now()) }
	if bodySigned(c) {
		check = func(v *auth.Verifier) error { return v.Verify(c.Request().Header, body, g.now()) }
	}
	err := check(g.verifier)
	if err == nil {
		return CredentialAdmin, true, nil
	}
	if g.viewer != nil && check(g.viewer) == nil {
		return CredentialViewer, true, nil
	}
	msg := "Unauthorized"
	if auth.IsAuthError(err) {
		msg = err.Error()
	}
	return "", false, fail(http.StatusUnauthorized, msg)
}

// bodySigned reports whether the route of c takes an hmac signature of the
// body alone, as an inbox source does: the two POST routes that the
// reference documents, whose body says the whole action. Every other
// admin route (an empty body, the row in the path) takes only a signature
// that binds the method, the path with its query and a timestamp
// (auth.Verifier.VerifyRequest), so one signature cannot open them all.
func bodySigned(c echo.Context) bool {
	if c.Request().Method != http.MethodPost {
		return false
	}
	return c.Path() == "/admin/replay" || c.Path() == "/admin/transform/test"
}

// Routes are the handlers Mount registers.
type Routes struct {
	Replay        echo.HandlerFunc
	TransformTest echo.HandlerFunc // nil until transforms are available
	Workbench     *Workbench       // nil without a workbench store
}

// Mount registers the admin routes on e when opts.Enabled is true. With
// Enabled false the routes do not exist and answer 404.
func Mount(e *echo.Echo, opts Options, routes Routes, log *slog.Logger) {
	if !opts.Enabled {
		return
	}
	if routes.Replay != nil {
		e.POST("/admin/replay", routes.Replay)
	}
	if routes.TransformTest != nil {
		e.POST("/admin/transform/test", routes.TransformTest)
	}
	if routes.Workbench != nil {
		routes.Workbench.mount(e)
	}
	// The workbench UI: static files without secrets, served without
	// credentials; the page sends the credential on each call it makes.
	e.Match([]string{http.MethodGet, http.MethodHead}, ui.Prefix+"*", echo.WrapHandler(ui.Handler()))
	e.Match([]string{http.MethodGet, http.MethodHead}, strings.TrimSuffix(ui.Prefix, "/"),
		func(c echo.Context) error { return c.Redirect(http.StatusFound, "ui/") })
	if opts.Insecure {
		log.Warn("admin routes enabled without authentication (admin.insecure); never do this outside a local test",
			"ignored_auth", opts.AuthKind != "")
		return
	}
	if opts.Auth != nil {
		log.Info("admin routes enabled", "auth", opts.AuthKind, "viewer", opts.Viewer != nil)
	}
}

// describeJSONError turns a decoding error into a message that names the
// field and the expected JSON type, without Go type names.
func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return "the body must be a JSON object"
		}
		return fmt.Sprintf("%s must be %s, got %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "the body is not valid JSON"
	}
	return err.Error()
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.Kind().String()
}
