package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/tracing"
)

// The headers the relay sets on every forwarded row. Each replaces a
// received header of the same name in any letter case, so a sender
// cannot forge them; x-inbox-id is what marks a relayed row for the
// publishers (queuebox.Relayed).
const (
	HeaderInboxID        = queuebox.HeaderInboxID
	HeaderSource         = queuebox.HeaderSource
	HeaderIdempotencyKey = queuebox.HeaderIdempotencyKey
	HeaderCorrelationID  = queuebox.HeaderCorrelationID
)

// OutboxHeaders builds the outbox headers of a forwarded row: the stored
// inbox headers, then the four relay headers.
func OutboxHeaders(inboxHeaders string, id, source, key string, correlationID *string) ([]byte, error) {
	received := map[string]json.RawMessage{}
	if inboxHeaders != "" {
		if err := json.Unmarshal([]byte(inboxHeaders), &received); err != nil {
			return nil, fmt.Errorf("inbox headers of %s are not a JSON object: %w", id, err)
		}
	}
	out := make(map[string]any, len(received)+4)
	for name, v := range received {
		if isRelayHeader(name) {
			continue
		}
		out[name] = v
	}
	out[HeaderInboxID] = id
	out[HeaderSource] = source
	out[HeaderIdempotencyKey] = key
	if correlationID != nil && *correlationID != "" {
		out[HeaderCorrelationID] = *correlationID
	}
	return json.Marshal(out)
}

func isRelayHeader(name string) bool {
	for _, h := range []string{HeaderInboxID, HeaderSource, HeaderIdempotencyKey, HeaderCorrelationID} {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// rowHeaders decodes the stored headers of rows for the links of the
// batch span; it decodes nothing when tracing is off. A row whose headers
// do not decode only goes without a link: prepare reports it.
func (r *Relay) rowHeaders(rows []queuebox.InboxRow) []map[string]string {
	if r.batch == nil {
		return nil
	}
	out := make([]map[string]string, 0, len(rows))
	for _, row := range rows {
		var h map[string]string
		if json.Unmarshal([]byte(row.Headers), &h) == nil {
			out = append(out, h)
		}
	}
	return out
}

// rowContext returns ctx with the trace context that a row's headers
// (JSON object text) carry, for the log lines about that row, so they
// carry its trace_id; ctx itself when tracing is off or the headers hold
// none.
func (r *Relay) rowContext(ctx context.Context, headers []byte) context.Context {
	if r.batch == nil {
		return ctx
	}
	var h map[string]string
	if json.Unmarshal(headers, &h) != nil {
		return ctx
	}
	return tracing.Extract(ctx, h)
}
