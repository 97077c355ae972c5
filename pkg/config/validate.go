package config

import (
	"net/netip"
	"strings"
)

// validator checks one Config against every rule of the configuration
// reference that stops the start.
type validator struct {
	problems
	opts Options
	cfg  *Config
	// dbURL is database.url parsed, or nil when it did not validate.
	dbURL *DatabaseURL
}

// Validate selects the kind of every destination, source and auth block,
// fills the defaults that depend on the kind, and checks every rule that
// stops the start. It returns all problems together (errors.Join), sorted,
// each naming the YAML path and its QUEUEBOX_ variable. It is safe to call
// on a Config that Load returned or that code built from Default(); it
// modifies only the derived fields (Name, Kind) and kind defaults.
func (c *Config) Validate(opts Options) error {
	return joinSorted(c.check(opts.withDefaults()))
}

func (c *Config) check(opts Options) []error {
	v := &validator{opts: opts, cfg: c}
	c.selectKinds(&v.problems)
	v.server()
	v.database()
	v.outbox()
	v.capture()
	v.inbox()
	v.httpSettings()
	v.admin()
	v.destinations()
	v.routes()
	v.sources()
	v.retention()
	return v.errs
}

func (v *validator) server() {
	s, path := v.cfg.Server, keyPath{"server"}
	v.port(path.key("httpPort"), s.HTTPPort)
	if s.ManagementPort != nil {
		v.port(path.key("managementPort"), *s.ManagementPort)
		if *s.ManagementPort == s.HTTPPort {
			v.add(path.key("managementPort"), "must differ from %s, both are %d", path.key("httpPort").ref(), s.HTTPPort)
		}
	}
	for i, h := range s.AllowedHosts {
		if !validHostName(h) {
			v.add(path.key("allowedHosts").index(i), "must be a host name or an IP address without scheme, port or path, got %q", h)
		}
	}
}

// validHostName reports whether h is an IP address (an IPv6 one with or
// without brackets) or a DNS name of letters, digits, hyphens and dots.
func validHostName(h string) bool {
	if _, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
		return true
	}
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func (v *validator) outbox() {
	o, path := v.cfg.Outbox, keyPath{"outbox"}
	v.positive(path.key("pollIntervalMs"), int64(o.PollIntervalMs))
	v.positive(path.key("batchSize"), int64(o.BatchSize))
	v.positive(path.key("concurrency"), int64(o.Concurrency))
	v.positive(path.key("maxAttempts"), int64(o.MaxAttempts))
	v.positive(path.key("claimTimeoutMs"), int64(o.ClaimTimeoutMs))
	v.positive(path.key("shutdownTimeoutMs"), int64(o.ShutdownTimeoutMs))
	v.positive(path.key("pendingGaugeIntervalMs"), int64(o.PendingGaugeIntervalMs))
	v.nonNegative(path.key("retryBaseDelayMs"), int64(o.RetryBaseDelayMs))
}

func (v *validator) inbox() {
	in, path := v.cfg.Inbox, keyPath{"inbox"}
	v.positive(path.key("maxBodyBytes"), in.MaxBodyBytes)
	if !strings.HasPrefix(in.BasePath, "/") {
		v.add(path.key("basePath"), "must start with /, got %q", in.BasePath)
	}
	r, rpath := in.Relay, path.key("relay")
	v.positive(rpath.key("pollIntervalMs"), int64(r.PollIntervalMs))
	v.positive(rpath.key("batchSize"), int64(r.BatchSize))
	v.positive(rpath.key("claimTimeoutMs"), int64(r.ClaimTimeoutMs))
	v.positive(rpath.key("pendingGaugeIntervalMs"), int64(r.PendingGaugeIntervalMs))
	if r.MaxAttempts != nil {
		v.positive(rpath.key("maxAttempts"), int64(*r.MaxAttempts))
	}
}

func (v *validator) httpSettings() {
	// 0 would cut every last_error to nothing, including the status line
	// that says why a delivery failed.
	v.positive(keyPath{"http", "maxErrorBodyBytes"}, int64(v.cfg.HTTP.MaxErrorBodyBytes))
}

func (v *validator) admin() {
	a, path := v.cfg.Admin, keyPath{"admin"}
	if a.Enabled && a.Auth == nil && !a.Insecure {
		v.add(path.key("auth"), "is required when %s is true: set a bearer, api-key or hmac block, or set %s to true on a local machine only",
			path.key("enabled").ref(), path.key("insecure").ref())
	}
	v.positive(path.key("maxTransformTimeoutMs"), int64(a.MaxTransformTimeoutMs))
	v.positive(path.key("maxPayloadBytes"), a.MaxPayloadBytes)
	for _, c := range []struct {
		name string
		auth *SourceAuth
	}{{"auth", a.Auth}, {"viewer", a.Viewer}} {
		if c.auth == nil {
			continue
		}
		if IsPreset(c.auth.Kind) {
			v.add(path.key(c.name, "type"), "%s verifies a provider's webhook; the admin routes take bearer, api-key or hmac", c.auth.Kind)
			continue
		}
		v.sourceAuth(c.auth, path.key(c.name))
		v.strongCredentials(c.auth, path.key(c.name))
	}
	if a.Viewer != nil && a.Auth == nil && !a.Insecure {
		v.add(path.key("viewer"), "needs %s: a read-only credential beside no admin credential would leave the writes unusable", path.key("auth").ref())
	}
}
