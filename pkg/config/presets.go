package config

import (
	"slices"
	"strings"

	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// defaultPresetToleranceSeconds is the default of auth.toleranceSeconds.
const defaultPresetToleranceSeconds = 300

// maxPreviousSecrets bounds auth.previousSecrets, as signing does.
const maxPreviousSecrets = webhooksig.MaxPreviousSecrets

// preset is where a provider puts the idempotency key and the event type
// of a webhook: a body path or a list of headers (lower case). The source
// keeps a path that it configures itself.
type preset struct {
	keyPath, eventTypePath string
	keyHeaders             []string
	eventTypeHeader        string
	// unsignedKey is true for a provider whose signature covers the body
	// but not the headers of the delivery id and event type: its sources
	// deduplicate on the digest of the body by default.
	unsignedKey bool
}

// presets are the provider presets of an HTTP source's auth block.
var presets = map[string]preset{
	AuthStripe:           {keyPath: "$.id", eventTypePath: "$.type"},
	AuthGitHub:           {keyHeaders: []string{"x-github-delivery"}, eventTypeHeader: "x-github-event", unsignedKey: true},
	AuthShopify:          {keyHeaders: []string{"x-shopify-webhook-id", "x-shopify-event-id"}, eventTypeHeader: "x-shopify-topic", unsignedKey: true},
	AuthSlack:            {keyPath: "$.event_id", eventTypePath: "$.event.type"},
	AuthStandardWebhooks: {keyHeaders: []string{webhooksig.HeaderID}, eventTypePath: "$.type"},
}

// IsPreset reports whether kind is a provider preset (stripe, github,
// shopify, slack, standard-webhooks) rather than bearer, api-key or hmac.
func IsPreset(kind string) bool {
	_, ok := presets[kind]
	return ok
}

// presetOf returns the preset that an auth block's type names. The type
// alone selects a preset: its one required key, secret, is also hmac's.
func presetOf(a *SourceAuth) (string, preset, bool) {
	if a == nil {
		return "", preset{}, false
	}
	kind := strings.ToLower(strings.TrimSpace(a.Type))
	p, ok := presets[kind]
	return kind, p, ok
}

// fillPreset gives an HTTP source the attributes of its preset where it
// sets no path of its own. It runs before kind selection, because a
// preset that reads the key from a header stands in for
// idempotencyKeyPath.
func (s *Source) fillPreset() {
	_, p, ok := presetOf(s.Auth)
	if !ok {
		return
	}
	if strings.TrimSpace(s.IdempotencyKeyPath) == "" {
		s.IdempotencyKeyPath = p.keyPath
		s.IdempotencyKeyHeaders = slices.Clone(p.keyHeaders)
	}
	if p.unsignedKey && s.Auth.DeduplicateOnBody == nil {
		on := true
		s.Auth.DeduplicateOnBody = &on
	}
	if strings.TrimSpace(s.EventTypePath) == "" {
		s.EventTypePath = p.eventTypePath
		s.EventTypeHeader = p.eventTypeHeader
	}
}

// selectSourceKind selects the kind of s. A preset's key header counts as
// idempotencyKeyPath, which the http kind requires.
func (s *Source) selectSourceKind(path keyPath, ps *problems) string {
	probe := s
	if strings.TrimSpace(s.IdempotencyKeyPath) == "" && len(s.IdempotencyKeyHeaders) > 0 {
		c := *s
		c.IdempotencyKeyPath = "$"
		probe = &c
	}
	return selectKind(probe, s.Type, sourceKinds, path, ps)
}

// presetAuth checks the keys of a preset auth block: toleranceSeconds,
// the number of previous secrets, the strength of every secret (for
// standard-webhooks the whsec_ form, whose decoded length that check
// bounds). Messages never quote a secret.
// deduplicateOnBody refuses auth.deduplicateOnBody on a kind whose
// signature does not leave the delivery id unsigned.
func (v *validator) deduplicateOnBody(a *SourceAuth, path keyPath) {
	if a.DeduplicateOnBody == nil || presets[a.Kind].unsignedKey {
		return
	}
	v.add(path.key("deduplicateOnBody"), "applies to the github and shopify presets only, not to %s", a.Kind)
}

func (v *validator) presetAuth(a *SourceAuth, path keyPath) {
	v.positive(path.key("toleranceSeconds"), int64(a.ToleranceSeconds))
	v.previousSecrets(path, a.PreviousSecrets)
	if a.Kind != AuthStandardWebhooks {
		v.strongCredentials(a, path)
		for i, s := range a.PreviousSecrets {
			if s.IsEmpty() {
				v.add(path.key("previousSecrets").index(i), "must not be empty")
			}
		}
		return
	}
	v.whsecSecrets(path, a.Secret, a.PreviousSecrets)
}

// signing checks the signing block of a destination.
func (v *validator) signing(d *Destination, path keyPath) {
	s := d.Signing
	if s == nil {
		return
	}
	spath := path.key("signing")
	if s.Scheme == "" {
		s.Scheme = SigningStandardWebhooks
	}
	v.oneOf(spath.key("scheme"), s.Scheme, SigningStandardWebhooks)
	if s.Secret.IsEmpty() {
		v.add(spath.key("secret"), "required, but no source sets it")
	}
	v.previousSecrets(spath, s.PreviousSecrets)
	v.whsecSecrets(spath, s.Secret, s.PreviousSecrets)
	for name := range d.Headers {
		if webhooksig.Reserved(name) {
			v.add(path.key("headers"), "must not set %s: signing sets it on every message", name)
		}
	}
}

func (v *validator) previousSecrets(path keyPath, previous []secret.Secret) {
	if len(previous) > maxPreviousSecrets {
		v.add(path.key("previousSecrets"), "must list at most %d secrets, got %d", maxPreviousSecrets, len(previous))
	}
}

// whsecSecrets checks that the current and every previous secret are
// whsec_ keys of the Standard Webhooks scheme. An empty current secret is
// reported elsewhere.
func (v *validator) whsecSecrets(path keyPath, current secret.Secret, previous []secret.Secret) {
	if !current.IsEmpty() {
		if _, err := webhooksig.ParseSecret(current.Reveal()); err != nil {
			v.add(path.key("secret"), "%v", err)
		}
	}
	for i, s := range previous {
		if _, err := webhooksig.ParseSecret(s.Reveal()); err != nil {
			v.add(path.key("previousSecrets").index(i), "%v", err)
		}
	}
}

// minSecretBytes is the shortest credential that a preset secret or an
// admin credential may be: a shorter or blank one is guessed or
// brute-forced offline from one signed request.
const minSecretBytes = 16

// strongSecret refuses a credential that is set but blank or shorter than
// minSecretBytes. An absent one is reported by the rules of its kind. The
// message never quotes the value or its length.
func (v *validator) strongSecret(path keyPath, s secret.Secret) {
	if s.IsEmpty() {
		return
	}
	text := s.Reveal()
	if strings.TrimSpace(text) == "" || len(text) < minSecretBytes {
		v.add(path, "must be at least %d bytes and not blank", minSecretBytes)
	}
}

// strongCredentials applies strongSecret to every credential of an auth
// block.
func (v *validator) strongCredentials(a *SourceAuth, path keyPath) {
	v.strongSecret(path.key("token"), a.Token)
	v.strongSecret(path.key("key"), a.Key)
	v.strongSecret(path.key("secret"), a.Secret)
	for i, s := range a.PreviousSecrets {
		v.strongSecret(path.key("previousSecrets").index(i), s)
	}
}
