package integration

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// TestRelayedRowDropsTheSendersOverrides: a webhook sender's method, host
// and URL overrides, CDN client-address headers, IP-allowlist bypasses
// and Content-Encoding do not
// reach the receiver of the relayed row, and a provider header still
// does.
func TestRelayedRowDropsTheSendersOverrides(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, nil)
	ingest := startStripeStack(t, db, receiverYAML(rc.URL))
	dropped := []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override", "X-Original-URL",
		"X-Rewrite-URL", "True-Client-IP", "CF-Connecting-IP", "X-Client-IP", "X-Cluster-Client-IP",
		"Fastly-Client-IP", "Content-Encoding", "X-Original-Host", "X-Host", "X-Original-Method", "X-ProxyUser-Ip",
		"X-Custom-IP-Authorization"}
	header := []string{"Stripe-Signature", "t=1,v1=abc"}
	for _, name := range dropped {
		header = append(header, name, "DELETE")
	}
	code, resp, _ := post(t, ingest.url("/inbox/stripe"), `{"id":"e1","type":"analytics.payment.succeeded"}`, header...)
	require.Equal(t, http.StatusAccepted, code, resp)
	waitOutbox(t, db, "analytics.payment.succeeded", "sent")
	got := rc.Requests()
	require.Len(t, got, 1)
	require.Equal(t, "t=1,v1=abc", got[0].Header.Get("Stripe-Signature"), "provider headers still travel")
	for _, name := range dropped {
		require.Empty(t, got[0].Header.Values(name), name)
	}
}

// receiverYAML routes every topic to the HTTP destination receiver at
// url, polling the outbox every 20 ms.
func receiverYAML(url string) string {
	return fmt.Sprintf(`
outbox:
  pollIntervalMs: 20
destinations:
  receiver:
    type: http
    baseUrl: %s
routes:
  - topicPattern: "**"
    destination: receiver
`, url)
}
