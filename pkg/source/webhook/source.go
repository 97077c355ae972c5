package webhook

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/ingest"
)

// Source describes one HTTP source. The package reads no configuration:
// the wiring maps each source of kind http onto a Source.
type Source struct {
	// Receive is what the receive step takes; Receive.Name is the source
	// name, which the errors, logs and metrics of the source carry.
	Receive ingest.Source
	// Path is where the source answers, under Inbox.BasePath (see Route).
	Path string
	// RequestsPerMinute bounds the requests of the source (step 0); 0
	// admits every request.
	RequestsPerMinute int
	// Auth is the credential check (step 2); nil checks none.
	Auth *auth.Options
	// PathSetting names Path in an error, as the configuration spells the
	// setting; empty gives sources.<name>.path.
	PathSetting string
}

// Inbox is what every HTTP source shares.
type Inbox struct {
	// BasePath is the path that every source's Path follows.
	BasePath string
	// MaxBodyBytes bounds a request body (step 1).
	MaxBodyBytes int64
}

// Handler serves one HTTP source: the HTTP steps of the package
// documentation around the Receiver of the source. It is safe for
// concurrent use.
type Handler struct {
	name, route string
	maxBody     int64
	verifier    *auth.Verifier
	limiter     *limiter
	recv        *ingest.Receiver
	log         *slog.Logger
	now         func() time.Time
}

// NewHandler builds the handler of the HTTP source src. The error names
// the setting of the source that cannot be used.
func NewHandler(src Source, inbox Inbox, opts ingest.Options) (*Handler, error) {
	if opts.Store == nil || opts.Metrics == nil {
		return nil, fmt.Errorf("ingest: Options.Store and Options.Metrics are required")
	}
	name := src.Receive.Name
	h := &Handler{
		name: name, route: Route(inbox.BasePath, src.Path),
		maxBody: inbox.MaxBodyBytes, limiter: newLimiter(src.RequestsPerMinute), log: opts.Log, now: opts.Now,
	}
	// The router reads ':' as a parameter and '*' as a wildcard; a source
	// path holding them would answer other paths too.
	if strings.ContainsAny(h.route, ":*") {
		setting := src.PathSetting
		if setting == "" {
			setting = "sources." + name + ".path"
		}
		return nil, fmt.Errorf("%s: %q holds ':' or '*', which an inbox path cannot use", setting, src.Path)
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h.log = h.log.With("source", name)
	if h.now == nil {
		h.now = time.Now
	}
	v, err := auth.New(src.Auth)
	if err != nil {
		return nil, fmt.Errorf("sources.%s.auth: %w", name, err)
	}
	h.verifier = v
	// The receiver reads the receipt time from the message, so the rate
	// limit, the HMAC check and $timestamp share one reading of the clock.
	if h.recv, err = ingest.NewReceiver(src.Receive, ingest.Transport{OmitHeaders: v.CredentialHeaders()}, opts); err != nil {
		return nil, err
	}
	return h, nil
}

// Name is the source name; Route is the path the handler answers on.
func (h *Handler) Name() string  { return h.name }
func (h *Handler) Route() string { return h.route }

// Route joins inbox.basePath and the path of a source with one slash
// between them, the way the configuration loader compares routes.
func Route(basePath, path string) string {
	route := strings.TrimRight(basePath, "/") + "/" + strings.Trim(strings.TrimSpace(path), "/")
	if len(route) > 1 {
		route = strings.TrimRight(route, "/")
	}
	return route
}
