package httpbody

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
)

// BudgetFactor sizes the bound on request bodies in flight on the data
// port: this many bodies of inbox.maxBodyBytes (64 MiB at the default
// 1 MiB).
const BudgetFactor = 64

// RetryAfter is the Retry-After, in seconds, of a request refused
// because the budget is spent.
const RetryAfter = 1

// Budget bounds the bytes of the request bodies in flight to budget.
// A request reserves its declared Content-Length, or limit (the largest
// body it may send) when it declares none, for as long as its handler
// runs; a request without a body reserves nothing. A reservation that
// does not fit is answered at once with 503, Retry-After and
// {"error":"Too many request bodies in flight; retry later"}, so a crowd
// of slow senders cannot hold more memory than the budget. It never waits.
func Budget(budget, limit int64) echo.MiddlewareFunc {
	b := &bodyBudget{free: budget}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			n := reservation(c.Request(), limit)
			if n == 0 {
				return next(c)
			}
			if !b.take(n) {
				c.Response().Header().Set("Retry-After", strconv.Itoa(RetryAfter))
				return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": "Too many request bodies in flight; retry later"})
			}
			defer b.give(n)
			return next(c)
		}
	}
}

// reservation is what a request may read: its Content-Length, capped at
// limit (Limit refuses a longer one), or limit for a chunked body.
func reservation(r *http.Request, limit int64) int64 {
	switch {
	case r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0:
		return 0
	case r.ContentLength < 0 || r.ContentLength > limit:
		return limit
	}
	return r.ContentLength
}

type bodyBudget struct {
	mu   sync.Mutex
	free int64
}

func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.free {
		return false
	}
	b.free -= n
	return true
}

func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
}
