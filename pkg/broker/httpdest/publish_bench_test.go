package httpdest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/broker/httpdest"
)

// answerOK is a transport that answers every request 200 with an empty
// body without a network, so a benchmark sees the publisher's own work
// per delivery: the row check, the header and request building, the
// client's bookkeeping.
type answerOK struct{}

func (answerOK) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

// BenchmarkPublish measures one publish of a keyless row without row
// headers, the deliver bench's shape, and of a keyed row with two row
// headers, to a destination with one static header.
func BenchmarkPublish(b *testing.B) {
	for _, tc := range []struct {
		name    string
		key     string
		headers map[string]string
	}{
		{"null key, no row headers", "", nil},
		{"key, two row headers", "cust-42", map[string]string{"X-Tenant": "t-1", "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := httpdest.New(httpdest.Options{Name: "orders", BaseURL: "http://receiver.test", Path: "/events",
				Headers: map[string]string{"X-Source": "queuebox"}, Client: &http.Client{Transport: answerOK{}}})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			d := delivery(tc.key, 1)
			d.Message.Headers = tc.headers
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Publish(b.Context(), d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPublishLoopback is one keyless publish through the publisher's
// own transport to a loopback server that answers 200: the path of the
// deliver bench. Its allocations include the server's side.
func BenchmarkPublishLoopback(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	p, err := httpdest.New(httpdest.Options{Name: "orders", BaseURL: srv.URL, Path: "/events"})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	d := delivery("", 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Publish(b.Context(), d); err != nil {
			b.Fatal(err)
		}
	}
}
