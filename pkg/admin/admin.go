// Package admin serves the admin routes of queuebox-deliver:
// POST /admin/replay and POST /admin/transform/test. They exist only when
// admin.enabled is true, and every request passes admin.auth unless
// admin.insecure is true.
package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/httpbody"
)

// guard reads the body under admin.maxPayloadBytes and checks the
// credentials on the raw body (HMAC signs it). fail renders an error body
// in the shape of the route.
type guard struct {
	limit    int64
	verifier *auth.Verifier
	insecure bool
	now      func() time.Time
}

// newGuard builds the guard of opts, which withDefaults has checked.
func newGuard(opts Options) *guard {
	g := &guard{limit: opts.MaxPayloadBytes, insecure: opts.Insecure, now: time.Now}
	// admin.insecure lets requests in without credentials, whether or not
	// an admin.auth block is also set.
	if !opts.Insecure {
		g.verifier = opts.Auth
	}
	return g
}

// read returns the body of an authenticated request, or writes the 413 or
// 401 answer through fail and returns ok false.
//
// Bearer and api-key credentials are checked before the body is read, so
// an unauthenticated caller costs no body read; hmac signs the body and is
// checked after it. An answer given before the body was read to its end
// (that early 401, or a 413) closes the connection, so a caller that never
// finishes its body cannot hold it while net/http drains the rest.
func (g *guard) read(c echo.Context, fail func(code int, msg string) error) ([]byte, bool, error) {
	unread := func(code int, msg string) error {
		if c.Request().ContentLength != 0 {
			defer httpbody.CloseUnread(c.Response())()
		}
		return fail(code, msg)
	}
	early := g.verifier != nil && !g.verifier.NeedsBody()
	if early {
		if ok, err := g.verify(c, nil, unread); !ok {
			return nil, false, err
		}
	}
	body, err := httpbody.Read(c.Request(), g.limit)
	if err != nil {
		var tooLarge *httpbody.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, false, unread(http.StatusRequestEntityTooLarge, tooLarge.Error())
		}
		return nil, false, fail(http.StatusBadRequest, "Invalid request: "+err.Error())
	}
	if g.verifier != nil && !early {
		if ok, err := g.verify(c, body, fail); !ok {
			return nil, false, err
		}
	}
	return body, true, nil
}

// verify reports whether the credentials pass, or writes the 401 answer
// through fail and returns its error.
func (g *guard) verify(c echo.Context, body []byte, fail func(code int, msg string) error) (bool, error) {
	err := g.verifier.Verify(c.Request().Header, body, g.now())
	if err == nil {
		return true, nil
	}
	msg := "Unauthorized"
	if auth.IsAuthError(err) {
		msg = err.Error()
	}
	return false, fail(http.StatusUnauthorized, msg)
}

// Routes are the handlers Mount registers.
type Routes struct {
	Replay        echo.HandlerFunc
	TransformTest echo.HandlerFunc // nil until transforms are available
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
	if opts.Insecure {
		log.Warn("admin routes enabled without authentication (admin.insecure); never do this outside a local test",
			"ignored_auth", opts.AuthKind != "")
		return
	}
	if opts.Auth != nil {
		log.Info("admin routes enabled", "auth", opts.AuthKind)
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
