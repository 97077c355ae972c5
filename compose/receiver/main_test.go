package main

import (
	"bytes"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The log line is the one the first tutorial shows.
func TestHandlerLogsTheTutorialLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers bool
		want    string
	}{
		{"body only", false, "delivered POST /webhook {\"amount\":42,\"orderId\":\"1001\"}\n"},
		{"with headers", true, "delivered POST /webhook {\"amount\":42,\"orderId\":\"1001\"}\n  headers X-Topic=order.created X-Attempt=0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(`{"amount":42,"orderId":"1001"}`))
			req.Header.Set("X-Topic", "order.created")
			req.Header.Set("X-Attempt", "0")
			rec := httptest.NewRecorder()
			handler(log.New(&out, "", 0), tc.headers)(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", rec.Code)
			}
			if out.String() != tc.want {
				t.Fatalf("logged %q, want %q", out.String(), tc.want)
			}
		})
	}
}
