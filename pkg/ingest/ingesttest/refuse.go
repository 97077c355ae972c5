package ingesttest

import (
	"strings"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// RefuseAsPostgres is an Inbox.Refuse that refuses a row as PostgreSQL
// does when a text column (the idempotency key, correlation id, event
// type, aggregate id) or a header name or value of the jsonb column
// holds a NUL or invalid UTF-8.
func RefuseAsPostgres(row queuebox.ReceivedRow) error {
	texts := []string{row.IdempotencyKey, row.CorrelationID}
	for _, p := range []*string{row.EventType, row.AggregateID} {
		if p != nil {
			texts = append(texts, *p)
		}
	}
	for name, v := range row.Headers {
		texts = append(texts, name, v)
	}
	for _, s := range texts {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return &queuebox.RefusedValueError{Reason: `invalid byte sequence for encoding "UTF8"`}
		}
	}
	return nil
}
