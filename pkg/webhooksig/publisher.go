package webhooksig

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
)

// Options configure the signing of one destination.
type Options struct {
	// Scheme must be Scheme (standard-webhooks); empty means Scheme.
	Scheme string
	// Secret is the current key, "whsec_" and base64. Required.
	Secret secret.Secret
	// PreviousSecrets are still signed with during a rotation, at most
	// MaxPreviousSecrets, in the order given after the current key.
	PreviousSecrets []secret.Secret
	// Now is the clock of webhook-timestamp, for tests. Default time.Now.
	Now func() time.Time
}

// Publisher signs every delivery and hands it to the publisher it wraps.
// Each attempt carries webhook-id (the outbox row id, the same on every
// retry and replay), webhook-timestamp (this attempt, Unix seconds) and
// webhook-signature over the exact body that the wrapped publisher sends.
//
// The three headers travel as row headers of a copy of the row, so every
// destination kind sends them the way it sends any row header. Any header
// of the row that has one of these names, in any letter case, is replaced
// first: neither the application nor a relayed sender can set or remove
// them. Publisher is safe for concurrent use when the wrapped publisher
// is; Close closes the wrapped publisher.
type Publisher struct {
	next queuebox.Publisher
	keys *Keys
	now  func() time.Time
}

var _ queuebox.Publisher = (*Publisher)(nil)

// Wrap returns next signed with opts. The error names the bad key
// ("signing.secret", "signing.previousSecrets[i]") and never holds a key.
func Wrap(next queuebox.Publisher, opts Options) (*Publisher, error) {
	if opts.Scheme != "" && opts.Scheme != Scheme {
		return nil, fmt.Errorf("signing.scheme: %q is not %s", opts.Scheme, Scheme)
	}
	previous := make([]string, len(opts.PreviousSecrets))
	for i, s := range opts.PreviousSecrets {
		previous[i] = s.Reveal()
	}
	keys, err := NewKeys(opts.Secret.Reveal(), previous)
	if err != nil {
		return nil, fmt.Errorf("signing.%w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Publisher{next: next, keys: keys, now: opts.Now}, nil
}

// Publish signs d and publishes it with the wrapped publisher; see
// queuebox.Publisher. d and its row are not changed.
func (p *Publisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	if d.Message != nil {
		d.Message = p.sign(d.Message, d.Body)
	}
	return p.next.Publish(ctx, d)
}

// Close closes the wrapped publisher.
func (p *Publisher) Close() error { return p.next.Close() }

// Headers returns the three headers of one attempt of the row id with
// body at time at.
func (p *Publisher) Headers(id string, body []byte, at time.Time) map[string]string {
	ts := at.Unix()
	return map[string]string{
		HeaderID:        id,
		HeaderTimestamp: strconv.FormatInt(ts, 10),
		HeaderSignature: p.keys.Sign(id, ts, body),
	}
}

// sign returns a copy of m whose headers hold this attempt's signature
// headers in place of any of the same name.
func (p *Publisher) sign(m *queuebox.OutboxMessage, body []byte) *queuebox.OutboxMessage {
	out := *m
	out.Headers = maps.Clone(m.Headers)
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	for name := range out.Headers {
		if Reserved(name) {
			delete(out.Headers, name)
		}
	}
	maps.Copy(out.Headers, p.Headers(m.MessageID(), body, p.now()))
	return &out
}

// Reserved reports whether name is one of the three signing headers, in
// any letter case.
func Reserved(name string) bool {
	return strings.EqualFold(name, HeaderID) || strings.EqualFold(name, HeaderTimestamp) ||
		strings.EqualFold(name, HeaderSignature)
}
