// Package httpbody bounds the request bodies that an HTTP server reads:
// Read holds one body to a byte limit as it arrives, Limit refuses a
// declared Content-Length above it before any handler runs, and Budget
// bounds the bytes of all the bodies in flight. It knows no store and no
// source, so any HTTP route (the inbox sources, the admin routes) can use
// it.
package httpbody

import (
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// TooLargeError reports a request body above the configured limit. Its
// text is the error message of the 413 answer.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return "Request body exceeds " + strconv.FormatInt(e.Limit, 10) + " bytes"
}

// Read reads the whole request body, counting bytes as they arrive, so a
// chunked body without Content-Length is held to the same limit. A body
// above limit fails with *TooLargeError, after reading at most limit+1
// bytes (none when Content-Length already says so); a read error is
// returned as it came. Read does not close the body.
func Read(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return body, nil
}

// Limit answers 413 with {"error":"Request body exceeds <limit> bytes"}
// for a declared Content-Length above limit, on every route of the
// server, before the handler runs, and closes the connection after it
// (CloseUnread). Handlers that read the body use Read for chunked bodies.
func Limit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().ContentLength > limit {
				// The body is never read: close rather than drain it.
				defer CloseUnread(c.Response())()
				return c.JSON(http.StatusRequestEntityTooLarge, map[string]string{"error": (&TooLargeError{Limit: limit}).Error()})
			}
			return next(c)
		}
	}
}
