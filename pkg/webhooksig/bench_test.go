package webhooksig_test

import (
	"context"
	"testing"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/webhooksig"
)

type discard struct{}

func (discard) Publish(context.Context, queuebox.Delivery) error { return nil }
func (discard) Close() error                                     { return nil }

// BenchmarkPublishSigned is the cost that signing adds to one delivery of
// a 1 KiB body with a current and a previous key: the row copy, two
// HMAC-SHA256 and the header values.
func BenchmarkPublishSigned(b *testing.B) {
	p, err := webhooksig.Wrap(discard{}, webhooksig.Options{Secret: secret.New(key(32, 'c')),
		PreviousSecrets: []secret.Secret{secret.New(key(32, 'p'))}})
	if err != nil {
		b.Fatal(err)
	}
	d := queuebox.Delivery{Message: &queuebox.OutboxMessage{ID: "0190f7c2-7d1e-7000-8000-000000000001",
		Headers: map[string]string{"x-tenant": "acme"}}, Body: make([]byte, 1024)}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Publish(context.Background(), d)
	}
}
