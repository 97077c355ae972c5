package webhook

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingestconfig"
)

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
// the key of the source that cannot be used.
func NewHandler(src *config.Source, inbox config.Inbox, opts ingest.Options) (*Handler, error) {
	if opts.Store == nil || opts.Metrics == nil {
		return nil, fmt.Errorf("ingest: Options.Store and Options.Metrics are required")
	}
	h := &Handler{
		name: src.Name, route: Route(inbox.BasePath, src.Path),
		maxBody: inbox.MaxBodyBytes, limiter: newLimiter(rateLimit(src)), log: opts.Log, now: opts.Now,
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
	v, err := auth.New(authOptions(src.Auth))
	if err != nil {
		return nil, fmt.Errorf("sources.%s.auth: %w", src.Name, err)
	}
	h.verifier = v
	// The receiver reads the receipt time from the message, so the rate
	// limit, the HMAC check and $timestamp share one reading of the clock.
	if h.recv, err = ingest.NewReceiver(ingestconfig.Source(src), ingest.Transport{OmitHeaders: v.CredentialHeaders()}, opts); err != nil {
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

func rateLimit(src *config.Source) int {
	if src.RateLimit == nil {
		return 0
	}
	return src.RateLimit.RequestsPerMinute
}

// authOptions maps the auth block of src onto the options of package
// auth, until the wiring does.
func authOptions(a *config.SourceAuth) *auth.Options {
	if a == nil {
		return nil
	}
	kind := a.Kind
	if kind == "" {
		kind = a.Type
	}
	return &auth.Options{
		Kind: kind, Token: a.Token, Key: a.Key, HeaderName: a.HeaderName,
		Secret: a.Secret, Algorithm: a.Algorithm, SignaturePrefix: a.SignaturePrefix,
		TimestampHeader: a.TimestampHeader, TimestampTolerance: a.TimestampTolerance,
		SignaturePayloadFormat: a.SignaturePayloadFormat,
		PreviousSecrets:        a.PreviousSecrets, ToleranceSeconds: a.ToleranceSeconds,
	}
}
