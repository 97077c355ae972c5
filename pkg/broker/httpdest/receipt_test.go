package httpdest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// The receipt of a publish holds the status of the answer, and for a
// failed one the start of its body, redacted as the error's: what the
// delivery ledger records. A publish that got no answer leaves it empty.
func TestPublishFillsTheReceipt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		code         int
		body         string
		want         queuebox.Receipt
		maxBodyBytes int
	}{
		{name: "sent", code: 200, body: "thanks", want: queuebox.Receipt{Status: "200"}},
		{name: "accepted without a body", code: 202, want: queuebox.Receipt{Status: "202"}},
		{name: "failed", code: 503, body: `{"error":"busy","token":"s3cr3t-token","note":"GLOBAL-SECRET-1"}`,
			want: queuebox.Receipt{Status: "503", Answer: `{"error":"busy","token":"***","note":"***"}`}},
		{name: "failed, cut", code: 500, body: "0123456789abcdef", maxBodyBytes: 10,
			want: queuebox.Receipt{Status: "500", Answer: "0123456789"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, status(tc.code, tc.body))
			p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Responses: counter(),
				Redactor: redact.New("GLOBAL-SECRET-1"), MaxErrorBodyBytes: tc.maxBodyBytes})
			d := delivery("", 0)
			d.Receipt = &queuebox.Receipt{}
			_ = p.Publish(t.Context(), d)
			require.Equal(t, tc.want, *d.Receipt)
		})
	}

	p := newPublisher(t, httpdest.Options{BaseURL: brokertest.UnreachableURL(t), Responses: counter()})
	d := delivery("", 0)
	d.Receipt = &queuebox.Receipt{}
	require.Error(t, p.Publish(t.Context(), d))
	require.Equal(t, queuebox.Receipt{}, *d.Receipt, "no answer, nothing to record")
	require.NoError(t, newPublisher(t, httpdest.Options{BaseURL: brokertest.NewHTTPReceiver(t, nil).URL, Responses: counter()}).
		Publish(t.Context(), delivery("", 0)), "a delivery without a receipt publishes as before")
}
