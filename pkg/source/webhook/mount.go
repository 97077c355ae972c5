package webhook

import (
	"sort"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
)

// Mount registers one POST route on e for each source of kind http, in the
// order of the source names, and returns their handlers. Sources of the
// other kinds are skipped; the caller decides what to do with them. An
// error leaves e unchanged.
func Mount(e *echo.Echo, cfg *config.Config, opts ingest.Options) ([]*Handler, error) {
	names := make([]string, 0, len(cfg.Sources))
	for name, src := range cfg.Sources {
		if src != nil && src.Kind == config.KindHTTP {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	handlers := make([]*Handler, 0, len(names))
	for _, name := range names {
		src := *cfg.Sources[name] // a copy: the name is set without touching cfg
		src.Name = name
		h, err := NewHandler(&src, cfg.Inbox, opts)
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
