package webhook

import (
	"net/http"
	"strings"

	"github.com/alternayte/queuebox/pkg/ingest"
)

// CorrelationHeader carries the correlation identifier in and out.
const CorrelationHeader = "X-Correlation-Id"

// receivedHeaders returns the request headers one value per lower-case
// name; a repeated name keeps its last value. Go moves Host out of the
// header map, so it is put back: it is a received header like the others.
func receivedHeaders(r *http.Request) map[string]string {
	out := make(map[string]string, len(r.Header)+1)
	for name, values := range r.Header {
		if len(values) > 0 {
			out[strings.ToLower(name)] = values[len(values)-1]
		}
	}
	if r.Host != "" {
		out["host"] = r.Host
	}
	return out
}

// The cap on the headers that one inbox row stores: their number, and the
// bytes of their names and values together (ingest.MaxStoredHeaders and
// ingest.MaxStoredHeaderBytes). A request past either gets 431 before its
// body is read; the server itself answers 431 past run.MaxHeaderBytes for
// the request head as a whole.
const (
	MaxStoredHeaders     = ingest.MaxStoredHeaders
	MaxStoredHeaderBytes = ingest.MaxStoredHeaderBytes
)
