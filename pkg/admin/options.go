package admin

import (
	"cmp"
	"errors"
	"time"

	"github.com/alternayte/queuebox/pkg/auth"
)

// Options are the settings of the admin routes; the wiring maps the admin
// block of the configuration onto them. A zero limit takes the default
// named beside it, the default of the matching admin key.
type Options struct {
	// Enabled says whether Mount registers the routes (admin.enabled).
	Enabled bool
	// Auth checks the credentials of every request (auth.New of the
	// admin.auth block). It is nil when no block is set, and then Insecure
	// must be true.
	Auth *auth.Verifier
	// AuthKind names the kind of the admin.auth block for the start-up
	// log; "" when no block is set.
	AuthKind string
	// Viewer checks the read-only credential (auth.New of the
	// admin.viewer block): it passes every GET of the admin routes and
	// gets 403 on every other method. nil when no block is set.
	Viewer *auth.Verifier
	// Insecure lets every request in without credentials, whether or not
	// Auth is set (admin.insecure).
	Insecure bool
	// MaxPayloadBytes bounds the body of one request
	// (admin.maxPayloadBytes, DefaultMaxPayloadBytes).
	MaxPayloadBytes int64
	// MaxTransformTimeout clamps the timeout of /admin/transform/test
	// (admin.maxTransformTimeoutMs, DefaultMaxTransformTimeout).
	MaxTransformTimeout time.Duration
}

// The defaults of Options.
const (
	DefaultMaxPayloadBytes     = 65536
	DefaultMaxTransformTimeout = time.Second
)

// withDefaults fills the zero limits and checks the credentials: the
// configuration reference makes them required unless Insecure is true.
func (o Options) withDefaults() (Options, error) {
	if o.MaxPayloadBytes < 0 || o.MaxTransformTimeout < 0 {
		return o, errors.New("admin: the limits must not be negative")
	}
	o.MaxPayloadBytes = cmp.Or(o.MaxPayloadBytes, DefaultMaxPayloadBytes)
	o.MaxTransformTimeout = cmp.Or(o.MaxTransformTimeout, DefaultMaxTransformTimeout)
	if o.Auth == nil && !o.Insecure {
		return o, errors.New("admin.auth (QUEUEBOX_ADMIN_AUTH_TYPE): the admin routes need credentials, or admin.insecure: true for a local test")
	}
	return o, nil
}
