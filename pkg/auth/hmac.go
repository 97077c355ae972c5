package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// hmacCheck holds one HMAC configuration with its defaults applied.
type hmacCheck struct {
	secret          []byte
	newHash         func() hash.Hash
	header          string
	prefix          string
	timestampHeader string // empty: no timestamp check
	tolerance       time.Duration
	signTimestamp   bool // TIMESTAMP_DOT_BODY: sign "<timestamp>.<body>"
	// requestHeader carries the timestamp of a request-bound signature
	// (verifyRequest): timestampHeader, or DefaultRequestTimestampHeader.
	requestHeader string
	// seen refuses a timestamped signature that passed once already; nil
	// for a source, whose senders may retry with the same signature.
	seen *seenSignatures
}

// newHMAC checks an HMAC-SHA256 or HMAC-SHA512 signature, written as lower
// case hexadecimal after signaturePrefix, of the raw body or of
// "<timestamp>.<body>". With timestampHeader, the header must hold Unix
// milliseconds within timestampTolerance of the clock, in both directions.
func newHMAC(opts *Options) (*Verifier, error) {
	c, err := hmacConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Verifier{check: c.verify, request: c.verifyRequest, hmac: c, headers: []string{c.header}, needsBody: true}, nil
}

func hmacConfig(opts *Options) (*hmacCheck, error) {
	if opts.Secret.IsEmpty() {
		return nil, fmt.Errorf("auth: hmac needs a secret")
	}
	c := &hmacCheck{
		secret:          []byte(opts.Secret.Reveal()),
		header:          strings.TrimSpace(opts.HeaderName),
		prefix:          DefaultSignaturePrefix,
		timestampHeader: strings.TrimSpace(opts.TimestampHeader),
		tolerance:       time.Duration(opts.TimestampTolerance) * time.Millisecond,
	}
	switch opts.Algorithm {
	case "", "HmacSHA256":
		c.newHash = sha256.New
	case "HmacSHA512":
		c.newHash = sha512.New
	default:
		return nil, fmt.Errorf("auth: hmac algorithm %q is not HmacSHA256 or HmacSHA512", opts.Algorithm)
	}
	if c.header == "" {
		c.header = DefaultSignatureHeader
	}
	if opts.SignaturePrefix != nil {
		c.prefix = *opts.SignaturePrefix
	}
	if c.tolerance <= 0 {
		c.tolerance = DefaultTimestampTolerance
	}
	c.requestHeader = c.timestampHeader
	if c.requestHeader == "" {
		c.requestHeader = DefaultRequestTimestampHeader
	}
	return c, c.payloadFormat(opts.SignaturePayloadFormat)
}

// payloadFormat applies signaturePayloadFormat; empty means
// TIMESTAMP_DOT_BODY with a timestamp header and BODY without one.
func (c *hmacCheck) payloadFormat(format string) error {
	switch format {
	case "":
		c.signTimestamp = c.timestampHeader != ""
	case PayloadBody, "body":
	case PayloadTimestampDotBody, "timestamp-dot-body":
		if c.timestampHeader == "" {
			return fmt.Errorf("auth: hmac signaturePayloadFormat %s needs a timestampHeader", format)
		}
		c.signTimestamp = true
	default:
		return fmt.Errorf("auth: hmac signaturePayloadFormat %q is not body or timestamp-dot-body", format)
	}
	return nil
}

// verify checks the headers in a fixed order: the signature is present,
// the timestamp is present, readable and fresh, then the signature is
// right. The age check comes first so that an old request fails the same
// way whatever its signature.
func (c *hmacCheck) verify(h http.Header, body []byte, now time.Time) error {
	got, err := headerValue(h, c.header)
	if err != nil {
		return err
	}
	stamp, err := c.timestamp(h, now)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(got), []byte(c.expected(stamp, body))) {
		return failf("Invalid signature")
	}
	if stamp == "" {
		return nil
	}
	return c.seen.first(got, stamp, c.tolerance, now)
}

// timestamp returns the text of the timestamp header after checking its
// age, or "" when the source has no timestamp header.
func (c *hmacCheck) timestamp(h http.Header, now time.Time) (string, error) {
	if c.timestampHeader == "" {
		return "", nil
	}
	return c.fresh(h, c.timestampHeader, now)
}

// fresh returns the text of the timestamp header name after checking that
// it holds Unix milliseconds within the tolerance of now.
func (c *hmacCheck) fresh(h http.Header, name string, now time.Time) (string, error) {
	text, err := headerValue(h, name)
	if err != nil {
		return "", err
	}
	at, err := parseMillis(text)
	if err != nil {
		return "", failf("Invalid timestamp in %s header: not Unix milliseconds", name)
	}
	age := now.Sub(at)
	if age > c.tolerance || age < -c.tolerance {
		return "", failf("Timestamp outside the tolerance of %d ms", c.tolerance.Milliseconds())
	}
	return text, nil
}

// expected is the header value a correct sender writes: the prefix, then
// the lower-case hexadecimal HMAC of the signed payload.
func (c *hmacCheck) expected(stamp string, body []byte) string {
	mac := hmac.New(c.newHash, c.secret)
	if c.signTimestamp {
		mac.Write([]byte(stamp))
		mac.Write([]byte{'.'})
	}
	mac.Write(body)
	return c.prefix + hex.EncodeToString(mac.Sum(nil))
}

// parseMillis reads Unix milliseconds.
func parseMillis(text string) (time.Time, error) {
	ms, err := strconv.ParseInt(text, 10, 64)
	return time.UnixMilli(ms), err
}
