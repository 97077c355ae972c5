package ingest

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/jsonpath"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Store writes received messages; see queuebox.InboxStore.
type Store = queuebox.InboxStore

// Options are the dependencies that every source of a process shares.
type Options struct {
	// Store is required.
	Store Store
	// Metrics is required; see NewMetrics.
	Metrics *Metrics
	// Log receives storage failures and, at debug level, rejections. It
	// never receives a body or a credential. Nil discards.
	Log *slog.Logger
	// Transforms builds source transforms. Nil refuses a source that
	// configures one, rather than storing payloads it was told to reshape.
	Transforms TransformFactory
	// Now is the clock of the rate limit and the HMAC timestamp check, and
	// the receipt time. Nil uses time.Now.
	Now func() time.Time
}

// Handler serves one HTTP source. It is safe for concurrent use.
type Handler struct {
	name, route, consumption string
	maxBody                  int64
	verifier                 *auth.Verifier
	omit                     map[string]bool // lower-case header names never stored
	filter                   *Filter
	limiter                  *limiter
	extractor                extractor
	transform                SourceTransform
	onError                  string
	inbox                    Store
	metrics                  *Metrics
	log                      *slog.Logger
	now                      func() time.Time
}

// NewHandler builds the handler of the HTTP source src. The error names
// the key of the source that cannot be used.
func NewHandler(src *config.Source, inbox config.Inbox, opts Options) (*Handler, error) {
	if opts.Store == nil || opts.Metrics == nil {
		return nil, fmt.Errorf("ingest: Options.Store and Options.Metrics are required")
	}
	h := &Handler{
		name: src.Name, route: Route(inbox.BasePath, src.Path), consumption: src.Consumption,
		maxBody: inbox.MaxBodyBytes, limiter: newLimiter(rateLimit(src)),
		inbox: opts.Store, metrics: opts.Metrics, log: opts.Log, now: opts.Now,
	}
	if h.consumption == "" {
		h.consumption = config.ConsumptionPush
	}
	// The router reads ':' as a parameter and '*' as a wildcard; a source
	// path holding them would answer other paths too.
	if strings.ContainsAny(h.route, ":*") {
		return nil, fmt.Errorf("sources.%s.path (%s): %q holds ':' or '*', which an inbox path cannot use",
			src.Name, config.PathToEnvKey("sources."+src.Name+".path"), src.Path)
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h.log = h.log.With("source", src.Name)
	if h.now == nil {
		h.now = time.Now
	}
	for _, step := range []func(*config.Source, Options) error{h.setAuth, h.setFilter, h.setPaths, h.setTransform} {
		if err := step(src, opts); err != nil {
			return nil, fmt.Errorf("sources.%s.%w", src.Name, err)
		}
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

func rateLimit(src *config.Source) int {
	if src.RateLimit == nil {
		return 0
	}
	return src.RateLimit.RequestsPerMinute
}

func (h *Handler) setAuth(src *config.Source, _ Options) error {
	v, err := auth.New(src.Auth)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	h.verifier = v
	h.omit = map[string]bool{}
	for _, name := range append(v.CredentialHeaders(), alwaysOmitted...) {
		h.omit[strings.ToLower(name)] = true
	}
	return nil
}

func (h *Handler) setFilter(src *config.Source, _ Options) error {
	f, err := NewFilter(src.Filter)
	h.filter = f
	return err
}

func (h *Handler) setPaths(src *config.Source, _ Options) error {
	var err error
	if h.extractor.key, err = jsonpath.Compile(src.IdempotencyKeyPath); err != nil {
		return fmt.Errorf("idempotencyKeyPath: %w", err)
	}
	if h.extractor.eventType, err = optionalPath(src.EventTypePath); err != nil {
		return fmt.Errorf("eventTypePath: %w", err)
	}
	if h.extractor.aggregateID, err = optionalPath(src.AggregateIDPath); err != nil {
		return fmt.Errorf("aggregateIdPath: %w", err)
	}
	return nil
}

func optionalPath(text string) (*jsonpath.Path, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	p, err := jsonpath.Compile(text)
	return &p, err
}

func (h *Handler) setTransform(src *config.Source, opts Options) error {
	if src.Transform == nil || strings.TrimSpace(src.Transform.Expression) == "" {
		return nil
	}
	if opts.Transforms == nil {
		return fmt.Errorf("transform: source transforms are not available in this build")
	}
	t, err := opts.Transforms(src.Name, *src.Transform)
	if err != nil {
		return fmt.Errorf("transform.expression: %w", err)
	}
	h.transform, h.onError = t, src.Transform.OnError
	if h.onError == "" {
		h.onError = config.OnErrorFail
	}
	return nil
}
