package auth

import (
	"crypto/hmac"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// DefaultRequestTimestampHeader carries the timestamp of a request-bound
// HMAC signature (VerifyRequest) when the block sets no timestampHeader.
const DefaultRequestTimestampHeader = "X-Timestamp"

// maxSeenSignatures bounds the signatures that an admin verifier keeps
// for its replay check. Only a holder of the secret can add one, so the
// bound is against a runaway client, not an attacker.
const maxSeenSignatures = 1 << 16

// NewAdmin builds the verifier of the admin routes (admin.auth or
// admin.viewer): New, and for hmac also the refusal of a timestamped signature that has passed
// once already within the tolerance (a replay of a captured request).
// Each verifier keeps its own record, in memory, per process.
func NewAdmin(opts *Options) (*Verifier, error) {
	v, err := New(opts)
	if err != nil || opts == nil || v.hmac == nil {
		return v, err
	}
	v.hmac.seen = &seenSignatures{until: map[string]time.Time{}}
	return v, nil
}

// VerifyRequest checks r with its raw body at time now. bearer and
// api-key check as Verify does. hmac checks a signature that binds the
// request: the lower-case hexadecimal HMAC, after signaturePrefix, of
//
//	<timestamp>.<METHOD>.<path?query>.<body>
//
// where timestamp is the text of the timestampHeader (default
// X-Timestamp, Unix milliseconds within timestampTolerance), METHOD the
// request method as sent, path?query the request target as sent (the
// path with its percent-encoding, then "?" and the raw query when there
// is one) and body the raw body. A signature of the body alone fails.
func (v *Verifier) VerifyRequest(r *http.Request, body []byte, now time.Time) error {
	if v.request == nil {
		return v.check(r.Header, body, now)
	}
	return v.request(r, body, now)
}

// verifyRequest is VerifyRequest of an hmac verifier.
func (c *hmacCheck) verifyRequest(r *http.Request, body []byte, now time.Time) error {
	got, err := headerValue(r.Header, c.header)
	if err != nil {
		return err
	}
	stamp, err := c.fresh(r.Header, c.requestHeader, now)
	if err != nil {
		return err
	}
	mac := hmac.New(c.newHash, c.secret)
	for _, part := range []string{stamp, r.Method, r.URL.RequestURI()} {
		mac.Write([]byte(part))
		mac.Write([]byte{'.'})
	}
	mac.Write(body)
	if !hmac.Equal([]byte(got), []byte(c.prefix+hex.EncodeToString(mac.Sum(nil)))) {
		return failf("Invalid signature: this route signs <timestamp>.<METHOD>.<path?query>.<body>")
	}
	return c.seen.first(got, stamp, c.tolerance, now)
}

// seenSignatures records the signatures that passed until their timestamp
// leaves the tolerance, after which the age check refuses them anyway. A
// nil *seenSignatures records nothing. It is safe for concurrent use.
type seenSignatures struct {
	mu    sync.Mutex
	until map[string]time.Time
	prune int // the size at which the next sweep of expired entries runs
}

// first records sig, signed at the Unix milliseconds of stamp, and fails
// when it was recorded before and has not expired.
func (s *seenSignatures) first(sig, stamp string, tolerance time.Duration, now time.Time) error {
	if s == nil {
		return nil
	}
	at, _ := parseMillis(stamp)
	s.mu.Lock()
	defer s.mu.Unlock()
	if until, ok := s.until[sig]; ok && !now.After(until) {
		return failf("Signature already used: sign each request with a new timestamp")
	}
	if len(s.until) >= s.prune {
		s.sweep(now)
	}
	if len(s.until) >= maxSeenSignatures {
		return failf("Too many signed requests within the timestamp tolerance; try again later")
	}
	s.until[sig] = at.Add(tolerance)
	return nil
}

// sweep drops the expired entries and sets the size of the next sweep, so
// that sweeping costs a constant time per recorded signature.
func (s *seenSignatures) sweep(now time.Time) {
	for sig, until := range s.until {
		if now.After(until) {
			delete(s.until, sig)
		}
	}
	s.prune = max(1024, 2*len(s.until))
}
