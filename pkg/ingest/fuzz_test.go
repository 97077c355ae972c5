package ingest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
)

// parseHeaders reads "name: value" lines into the lower-case map that the
// HTTP handler builds.
func parseHeaders(text string) map[string]string {
	h := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if ok && name != "" {
			h[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSpace(value)
		}
	}
	return h
}

// FuzzReceive drives the transport-neutral request path, headers and body
// to a decision, on an HTTP source with a header filter: whatever comes
// in, Receive decides without an error (the store never fails here), and
// a stored row holds only what the columns and the rules allow.
func FuzzReceive(f *testing.F) {
	f.Add("x-test: 1\ncontent-type: application/json", []byte(`{"id":"evt_1","type":"order.created","customer":"c-1"}`))
	f.Add("authorization: Bearer x\ncookie: a=b", []byte(`{"id":1,"type":"t"}`))
	f.Add("", []byte(`{"id":"a","type":"x\u0001y"}`))
	f.Add("x-drop: yes", []byte(`{"id":"b"}`))
	f.Add("", []byte(`not json`))
	f.Add("", []byte(`{"id":"n","v":"\u0000"}`))
	f.Fuzz(func(t *testing.T, headers string, body []byte) {
		src := source("s")
		src.Filter = &ingest.FilterSpec{Exclude: []ingest.FilterRule{{Header: "X-Drop", Equals: str("yes")}}}
		store := &memStore{}
		ev := newReceiver(t, src, ingest.Transport{}, store)
		d, err := ev.r.Receive(context.Background(), ingest.Message{Body: body, Headers: parseHeaders(headers)})
		if err != nil {
			t.Fatalf("Receive failed with a store that never fails: %v", err)
		}
		rows := store.Rows()
		switch d.Outcome {
		case ingest.Stored:
			if len(rows) != 1 {
				t.Fatalf("stored decision with %d rows", len(rows))
			}
		case ingest.Filtered, ingest.Rejected:
			if len(rows) != 0 {
				t.Fatalf("%v decision stored %d rows", d.Outcome, len(rows))
			}
			return
		default:
			t.Fatalf("HTTP source decided %v", d.Outcome)
		}
		row := rows[0]
		if row.IdempotencyKey == "" || utf8.RuneCountInString(row.IdempotencyKey) > 255 {
			t.Fatalf("stored idempotency key %q", row.IdempotencyKey)
		}
		for _, v := range []*string{row.EventType, row.AggregateID} {
			if v != nil && (strings.ContainsFunc(*v, unicode.IsControl) || utf8.RuneCountInString(*v) > 255) {
				t.Fatalf("stored attribute %q", *v)
			}
		}
		for name := range row.Headers {
			if name == "authorization" || name == "cookie" || name == "proxy-authorization" {
				t.Fatalf("stored credential header %s", name)
			}
		}
	})
}

// FuzzBrokerHeaders drives the headers of a broker message, name and
// value as any bytes a broker carries, with a body, through a broker
// receiver over a store that refuses what PostgreSQL refuses: the message
// is always kept, stored or dead, never rejected nor failed, and the row
// stores headers within the cap that the database takes.
func FuzzBrokerHeaders(f *testing.F) {
	f.Add("x-tenant", "a\x00b", 1, []byte(`{"id":"a"}`))
	f.Add("x-\xff", "\xc3", 1, []byte(`{"id":"b"}`))
	f.Add("x-idempotency-key", "k\x00", 1, []byte(`not json`))
	f.Add("x-event-type", "t\x01", 1, []byte(`{"id":"c"}`))
	f.Add("x-h", "v", 70, []byte(`{"id":"d"}`))
	f.Add("x-h", strings.Repeat("v", 400), 50, []byte(`{"id":"e"}`))
	f.Fuzz(func(t *testing.T, name, value string, copies int, body []byte) {
		copies = max(1, min(copies, 200))
		headers := map[string]string{}
		for i := range copies {
			headers[fmt.Sprintf("%s-%d", name, i)] = value
		}
		headers[strings.ToLower(name)] = value
		tr := broker
		tr.MaxBodyBytes = 256
		store := &memStore{Refuse: ingesttest.RefuseAsPostgres}
		ev := newReceiver(t, brokerSource("q"), tr, store)
		d, err := ev.r.Receive(context.Background(), ingest.Message{Body: body, Headers: headers})
		if err != nil {
			t.Fatalf("Receive failed with a store that never fails: %v", err)
		}
		if d.Outcome != ingest.Stored && d.Outcome != ingest.Dead {
			t.Fatalf("a broker message was %v: %s", d.Outcome, d.Message)
		}
		row := store.Rows()[0]
		if msg := ingest.HeadersTooLarge(row.Headers); msg != "" {
			t.Fatalf("stored headers past the cap: %s", msg)
		}
		if len(row.Payload) > 2*ingest.DeadBodyPrefix+64 && len(body) > 256 {
			t.Fatalf("stored %d bytes of a body past the bound", len(row.Payload))
		}
	})
}
