package webhook

import (
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/ingest"
)

// Mount registers one POST route on e for each of sources, in their
// order, and returns their handlers in the same order. An error leaves e
// unchanged.
func Mount(e *echo.Echo, inbox Inbox, sources []Source, opts ingest.Options) ([]*Handler, error) {
	handlers := make([]*Handler, 0, len(sources))
	for _, src := range sources {
		h, err := NewHandler(src, inbox, opts)
		if err != nil {
			return nil, err
		}
		handlers = append(handlers, h)
	}
	for _, h := range handlers {
		e.POST(h.route, h.Serve)
	}
	return handlers, nil
}
