package claim

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
)

// Health is the up or down state of a component built on a Loop, for its
// health check. A Loop whose Config names it marks it down when a claim
// fails and up when the database answers a claim, empty ones included: an
// idle component must not stay down after the database came back just
// because no row is due. The component may mark it down and up for its own
// statements too.
//
// Health is safe for concurrent use. It starts up.
type Health struct {
	failing string
	upAgain string
	log     *slog.Logger
	down    atomic.Bool
	lastErr atomic.Pointer[string]
}

// NewHealth builds a Health that is up. While down, Check answers
// "<failing>: <last error>"; the first Up after a Down logs upAgain at
// info level on log (nil: slog.Default()).
func NewHealth(log *slog.Logger, failing, upAgain string) *Health {
	if log == nil {
		log = slog.Default()
	}
	return &Health{failing: failing, upAgain: upAgain, log: log}
}

// Down marks the component down, with err as the reason Check gives.
func (h *Health) Down(err error) {
	msg := err.Error()
	h.lastErr.Store(&msg)
	h.down.Store(true)
}

// Up marks the component up again.
func (h *Health) Up() {
	if h.down.CompareAndSwap(true, false) {
		h.log.Info(h.upAgain)
	}
}

// Check is the health check of the component: nil while up, the reason of
// the last Down otherwise. It never blocks and ignores ctx.
func (h *Health) Check(context.Context) error {
	if !h.down.Load() {
		return nil
	}
	msg := ""
	if p := h.lastErr.Load(); p != nil {
		msg = *p
	}
	return errors.New(h.failing + ": " + msg)
}
