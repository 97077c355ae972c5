package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// DefaultToleranceSeconds is the age window of the timestamped presets
// (stripe, slack, standard-webhooks) when Options leave ToleranceSeconds
// at 0.
const DefaultToleranceSeconds = 300

// The headers that the presets read their signature from. A source never
// stores them, like the header of the hmac kind.
const (
	StripeSignatureHeader  = "Stripe-Signature"
	GitHubSignatureHeader  = "X-Hub-Signature-256"
	ShopifySignatureHeader = "X-Shopify-Hmac-Sha256"
	SlackSignatureHeader   = "X-Slack-Signature"
	SlackTimestampHeader   = "X-Slack-Request-Timestamp"
)

// presetCheck holds the keys of one preset, current first, and the age
// window of its timestamp.
type presetCheck struct {
	keys      [][]byte
	tolerance time.Duration
}

// newPreset builds the verifier of a provider preset. Stripe, GitHub,
// Shopify and Slack use the secret text itself as the HMAC key;
// standard-webhooks decodes its whsec_ keys.
func newPreset(kind string, opts *Options) (*Verifier, error) {
	if opts.Secret.IsEmpty() {
		return nil, fmt.Errorf("auth: %s needs a secret", kind)
	}
	if len(opts.PreviousSecrets) > webhooksig.MaxPreviousSecrets {
		return nil, fmt.Errorf("auth: %s takes at most %d previous secrets", kind, webhooksig.MaxPreviousSecrets)
	}
	c := &presetCheck{tolerance: time.Duration(opts.ToleranceSeconds) * time.Second}
	if c.tolerance <= 0 {
		c.tolerance = DefaultToleranceSeconds * time.Second
	}
	texts := []string{opts.Secret.Reveal()}
	for _, s := range opts.PreviousSecrets {
		texts = append(texts, s.Reveal())
	}
	if kind == KindStandardWebhooks {
		return c.standardWebhooks(texts)
	}
	for i, t := range texts {
		if t == "" {
			return nil, fmt.Errorf("auth: %s previousSecrets[%d] is empty", kind, i-1)
		}
		c.keys = append(c.keys, []byte(t))
	}
	v := &Verifier{needsBody: true}
	switch kind {
	case KindStripe:
		v.check, v.headers = c.stripe, []string{StripeSignatureHeader}
	case KindGitHub:
		v.check, v.headers = c.bodyMAC(GitHubSignatureHeader, ParseGitHubSignature), []string{GitHubSignatureHeader}
	case KindShopify:
		v.check, v.headers = c.bodyMAC(ShopifySignatureHeader, ParseShopifySignature), []string{ShopifySignatureHeader}
	case KindSlack:
		v.check, v.headers, v.slack = c.slack, []string{SlackSignatureHeader}, true
	default:
		return nil, fmt.Errorf("auth: unknown preset %q", kind)
	}
	return v, nil
}

// stripe checks Stripe-Signature: t=<seconds>,v1=<hex>[,v1=...][,v0=...].
// Any v1 that matches any key passes; v0 is ignored. The signed payload
// is "<t>.<body>".
func (c *presetCheck) stripe(h http.Header, body []byte, now time.Time) error {
	value, err := headerValue(h, StripeSignatureHeader)
	if err != nil {
		return err
	}
	sig, err := ParseStripeSignature(value)
	if err != nil {
		return err
	}
	if err := c.fresh(sig.Timestamp, now); err != nil {
		return err
	}
	var got [][]byte
	for _, s := range sig.V1 {
		if raw, err := hex.DecodeString(s); err == nil {
			got = append(got, raw)
		}
	}
	return c.match(got, func(key []byte) []byte { return hmacSHA256(key, []byte(sig.TimestampText), []byte("."), body) })
}

// bodyMAC checks a header that carries the HMAC of the body alone, read
// by parse: GitHub's X-Hub-Signature-256 (sha256= and hex) and Shopify's
// X-Shopify-Hmac-Sha256 (base64).
func (c *presetCheck) bodyMAC(header string, parse func(string) ([]byte, error)) func(http.Header, []byte, time.Time) error {
	return func(h http.Header, body []byte, _ time.Time) error {
		value, err := headerValue(h, header)
		if err != nil {
			return err
		}
		raw, err := parse(value)
		if err != nil {
			return err
		}
		return c.match([][]byte{raw}, func(key []byte) []byte { return hmacSHA256(key, body) })
	}
}

// slack checks X-Slack-Signature: v0=<hex of the HMAC of
// "v0:<X-Slack-Request-Timestamp>:<body>">, with the timestamp in
// seconds.
func (c *presetCheck) slack(h http.Header, body []byte, now time.Time) error {
	value, err := headerValue(h, SlackSignatureHeader)
	if err != nil {
		return err
	}
	stamp, err := headerValue(h, SlackTimestampHeader)
	if err != nil {
		return err
	}
	ts, err := parseSeconds(SlackTimestampHeader, stamp)
	if err != nil {
		return err
	}
	if err := c.fresh(ts, now); err != nil {
		return err
	}
	raw, err := ParseSlackSignature(value)
	if err != nil {
		return err
	}
	return c.match([][]byte{raw}, func(key []byte) []byte {
		return hmacSHA256(key, []byte("v0:"+stamp+":"), body)
	})
}

// standardWebhooks builds the verifier of the Standard Webhooks scheme:
// webhook-id, webhook-timestamp (seconds) and webhook-signature, any v1
// entry of which may match any whsec_ key.
func (c *presetCheck) standardWebhooks(texts []string) (*Verifier, error) {
	keys, err := webhooksig.NewKeys(texts[0], texts[1:])
	if err != nil {
		return nil, fmt.Errorf("auth: standard-webhooks %w", err)
	}
	check := func(h http.Header, body []byte, now time.Time) error {
		id, err := headerValue(h, webhooksig.HeaderID)
		if err != nil {
			return err
		}
		stamp, err := headerValue(h, webhooksig.HeaderTimestamp)
		if err != nil {
			return err
		}
		sig, err := headerValue(h, webhooksig.HeaderSignature)
		if err != nil {
			return err
		}
		ts, err := parseSeconds(webhooksig.HeaderTimestamp, stamp)
		if err != nil {
			return err
		}
		if err := c.fresh(ts, now); err != nil {
			return err
		}
		if !keys.Match(id, stamp, body, sig) {
			return failf("Invalid signature")
		}
		return nil
	}
	return &Verifier{check: check, headers: []string{webhooksig.HeaderSignature}, needsBody: true}, nil
}

// fresh refuses a send time more than the tolerance before or after now,
// the receipt time.
func (c *presetCheck) fresh(ts int64, now time.Time) error {
	age := now.Sub(time.Unix(ts, 0))
	if age > c.tolerance || age < -c.tolerance {
		return failf("Timestamp outside the tolerance of %d s", int64(c.tolerance/time.Second))
	}
	return nil
}

// match passes when any received signature equals the expected one under
// any key. It compares every pair in constant time and does not stop at
// the first match, so the time tells nothing about which key matched.
func (c *presetCheck) match(got [][]byte, expected func(key []byte) []byte) error {
	found := false
	for _, key := range c.keys {
		want := expected(key)
		for _, g := range got {
			if hmac.Equal(g, want) {
				found = true
			}
		}
	}
	if !found {
		return failf("Invalid signature")
	}
	return nil
}

func hmacSHA256(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// parseSeconds reads a Unix time in seconds from the header name.
func parseSeconds(name, text string) (int64, error) {
	ts, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, failf("Invalid timestamp in %s header: not Unix seconds", name)
	}
	return ts, nil
}

// base64Std decodes standard base64, with padding.
func base64Std(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }
