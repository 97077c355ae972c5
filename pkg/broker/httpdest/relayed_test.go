package httpdest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
)

// relayedRow is what the relay writes for a webhook whose sender chose
// every header it could: the stored inbound headers plus the relay's own.
func relayedRow(extra map[string]string) map[string]string {
	row := map[string]string{
		"x-inbox-id": "in-1", "x-source": "stripe", "x-idempotency-key": "evt_1", "X-Correlation-Id": "c-1",
		"content-type": "application/json", "user-agent": "Stripe/1.0", "host": "webhooks.example.com",
		"content-length": "17", "x-forwarded-for": "169.254.169.254", "forwarded": "for=10.0.0.1",
		"connection": "close", "transfer-encoding": "chunked", "stripe-signature-id": "sig-1",
	}
	for k, v := range extra {
		row[k] = v
	}
	return row
}

func TestRelayedRowCannotChooseTheDeliveryHeaders(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{
		BaseURL: rec.URL, Headers: map[string]string{"X-Tenant": "acme"},
		Auth: headerAuth("X-Auth-Token", "dest-secret"),
	})
	d := delivery("k", 0)
	d.Message.Headers = relayedRow(map[string]string{
		"x-auth-token": "sender-token", "x-message-id": "forged", "x-topic": "forged", "x-attempt": "9",
		"x-message-key": "forged", "x-tenant": "evil", "X-Forwarded-Host": "metadata",
	})
	require.NoError(t, p.Publish(t.Context(), d))

	reqs := rec.Requests()
	require.Len(t, reqs, 1)
	h := reqs[0].Header
	for name, want := range map[string]string{
		"Content-Type": "application/json", "X-Message-Id": "0190a8c4-6f0e-7b3c-9d21-5a6b7c8d9e0f",
		"X-Topic": "order.created", "X-Attempt": "0", "X-Message-Key": "k", "User-Agent": "QueueBox",
		"X-Tenant": "acme", "X-Auth-Token": "dest-secret",
	} {
		require.Equal(t, []string{want}, h.Values(name), name)
	}
	for _, name := range []string{"X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "Connection"} {
		require.Empty(t, h.Values(name), name)
	}
	// The relay headers and the sender's own headers still travel.
	for name, want := range map[string]string{
		"X-Inbox-Id": "in-1", "X-Source": "stripe", "X-Idempotency-Key": "evt_1",
		"X-Correlation-Id": "c-1", "Stripe-Signature-Id": "sig-1",
	} {
		require.Equal(t, []string{want}, h.Values(name), name)
	}
}

func TestRelayedRowWithoutAuthCannotAddAuthorization(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: basicAuth()})
	d := delivery("", 0)
	d.Message.Headers = relayedRow(map[string]string{"authorization": "Bearer sender"})
	require.NoError(t, p.Publish(t.Context(), d))
	require.Equal(t, []string{"Basic cXVldWVib3g6cGE1NXdvcmQ="}, rec.Requests()[0].Header.Values("Authorization"))
}

func TestApplicationRowKeepsItsPrecedenceButNoHopByHop(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: headerAuth("X-Auth-Token", "dest-secret")})
	d := delivery("", 0)
	d.Message.Headers = map[string]string{
		"x-auth-token": "app-token", "user-agent": "billing/2", "x-forwarded-for": "10.1.2.3",
		"connection": "close", "upgrade": "h2c", "proxy-authorization": "Basic eA==",
	}
	require.NoError(t, p.Publish(t.Context(), d))
	h := rec.Requests()[0].Header
	require.Equal(t, []string{"app-token"}, h.Values("X-Auth-Token"))
	require.Equal(t, []string{"billing/2"}, h.Values("User-Agent"))
	require.Equal(t, []string{"10.1.2.3"}, h.Values("X-Forwarded-For"), "the application is trusted with forwarding headers")
	require.Empty(t, h.Values("Upgrade"))
	require.Empty(t, h.Values("Proxy-Authorization"))
}
