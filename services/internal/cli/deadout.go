package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// listItem is one row of a list with the fields of the admin API's list
// item (WORKBENCH.md), camelCase, without payload and headers.
func listItem(m queuebox.Message, destinationsOf admin.DestinationsOf) map[string]any {
	item := map[string]any{"id": m.ID, "state": m.State, "attempt": m.Attempt, "lastError": m.LastError,
		"discarded": m.DiscardedAt != nil}
	if m.Table == queuebox.TableInbox {
		item["source"], item["eventType"], item["aggregateId"] = m.Source, m.EventType, m.AggregateID
		item["idempotencyKey"], item["consumption"] = m.IdempotencyKey, m.Consumption
		item["receivedAt"], item["processedAt"] = m.CreatedAt, m.ProcessedAt
		return item
	}
	item["topic"], item["key"], item["maxAttempts"] = m.Topic, m.Key, m.MaxAttempts
	item["createdAt"], item["scheduledAt"], item["sentAt"] = m.CreatedAt, m.ScheduledAt, m.SentAt
	d, routed := admin.Destination(m, destinationsOf)
	item["destination"], item["routed"], item["origin"] = nullable(d), routed, m.OriginID
	return item
}

// wholeRow is listItem plus payload, headers and every other column, and
// for an outbox row the deliveries of its message (nil: not read).
func wholeRow(m queuebox.Message, destinationsOf admin.DestinationsOf, deliveries []queuebox.Message) map[string]any {
	item := listItem(m, destinationsOf)
	item["table"] = m.Table
	item["payload"] = json.RawMessage(orNull(m.Payload))
	item["headers"] = json.RawMessage(orNull(m.Headers))
	item["claimedAt"], item["claimToken"], item["leaseExpiresAt"] = m.ClaimedAt, m.ClaimToken, m.LeaseExpiry
	item["discardedAt"] = m.DiscardedAt
	if m.Table == queuebox.TableInbox {
		item["scheduledAt"], item["correlationId"] = m.ScheduledAt, m.CorrelationID
		return item
	}
	item["aggregateType"], item["updatedAt"], item["sequence"] = m.AggregateType, m.UpdatedAt, m.Sequence
	item["messageId"] = m.MessageID()
	list := make([]map[string]any, len(deliveries))
	for i, r := range deliveries {
		d, routed := admin.Destination(r, destinationsOf)
		list[i] = map[string]any{"id": r.ID, "destination": nullable(d), "routed": routed, "origin": r.OriginID,
			"state": r.State, "attempt": r.Attempt, "maxAttempts": r.MaxAttempts, "lastError": r.LastError,
			"discarded": r.DiscardedAt != nil}
	}
	item["deliveries"] = list
	return item
}

// addAttempts adds the attempts of an outbox row's message to its whole
// row, in the admin API's shape; more says older ones were left out.
func addAttempts(item map[string]any, attempts []queuebox.Attempt, more bool) {
	list := make([]map[string]any, len(attempts))
	for i, a := range attempts {
		list[i] = admin.AttemptItem(a)
	}
	item["attempts"], item["attemptsTruncated"] = list, more
}

// destinationCell is the DESTINATION of a table row: the row's own, or
// the routes' answer in parentheses for a row not routed yet.
func destinationCell(m queuebox.Message, destinationsOf admin.DestinationsOf) string {
	d, routed := admin.Destination(m, destinationsOf)
	if d != "" && !routed {
		return "(" + d + ")"
	}
	return orDash(d)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

// printPage writes a page as JSON ({"items", "nextCursor"}) or a table
// with the next page's cursor below it.
func printPage(w io.Writer, out output, t queuebox.Table, page queuebox.MessagePage, destinationsOf admin.DestinationsOf) {
	var next *string
	if page.Next != nil {
		c := encodeCursor(*page.Next)
		next = &c
	}
	items := make([]map[string]any, len(page.Items))
	for i, m := range page.Items {
		items[i] = listItem(m, destinationsOf)
	}
	if out == "json" {
		writeJSON(w, map[string]any{"items": items, "nextCursor": next})
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if t == queuebox.TableInbox {
		fmt.Fprintln(tw, "ID\tSTATE\tSOURCE\tEVENT TYPE\tAGGREGATE\tATTEMPT\tRECEIVED\tLAST ERROR")
		for _, m := range page.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", m.ID, stateOf(m), m.Source, deref(m.EventType), deref(m.AggregateID),
				m.Attempt, m.CreatedAt.UTC().Format(time.RFC3339), short(m.LastError))
		}
	} else {
		fmt.Fprintln(tw, "ID\tSTATE\tTOPIC\tKEY\tDESTINATION\tORIGIN\tATTEMPT\tCREATED\tLAST ERROR")
		for _, m := range page.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", m.ID, stateOf(m), m.Topic, deref(m.Key),
				destinationCell(m, destinationsOf), deref(m.OriginID), m.Attempt, m.MaxAttempts, m.CreatedAt.UTC().Format(time.RFC3339),
				short(m.LastError))
		}
	}
	_ = tw.Flush()
	switch {
	case len(page.Items) == 0:
		fmt.Fprintln(w, "no rows match")
	case next != nil:
		fmt.Fprintf(w, "more rows: --cursor %s\n", *next)
	}
}

func stateOf(m queuebox.Message) string {
	if m.DiscardedAt != nil {
		return string(m.State) + " (discarded)"
	}
	return string(m.State)
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// short is the first line of an error, cut to 60 characters.
func short(s *string) string {
	if s == nil {
		return "-"
	}
	line, _, _ := strings.Cut(*s, "\n")
	if r := []rune(line); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return line
}

// printRow writes a whole row as "name: value" lines, the payload and
// headers indented below, and the deliveries of an outbox row's message
// as a table at the end.
func printRow(w io.Writer, item map[string]any) {
	keys := make([]string, 0, len(item))
	for k := range item {
		if k != "payload" && k != "headers" && k != "deliveries" && k != "attempts" && k != "attemptsTruncated" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, k := range keys {
		b, _ := json.Marshal(item[k])
		fmt.Fprintf(tw, "%s:\t%s\n", k, b)
	}
	_ = tw.Flush()
	for _, k := range []string{"headers", "payload"} {
		b, _ := json.MarshalIndent(item[k], "", "  ")
		fmt.Fprintf(w, "%s:\n%s\n", k, b)
	}
	printDeliveries(w, item)
	printAttempts(w, item)
}

// printDeliveries writes the deliveries of an outbox row's message as a
// table; nothing for an inbox row.
func printDeliveries(w io.Writer, item map[string]any) {
	deliveries, _ := item["deliveries"].([]map[string]any)
	if len(deliveries) == 0 {
		return
	}
	fmt.Fprintln(w, "deliveries:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tDESTINATION\tSTATE\tATTEMPT\tLAST ERROR")
	for _, d := range deliveries {
		dest, _ := d["destination"].(string)
		lastError, _ := d["lastError"].(*string)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d/%d\t%s\n", d["id"], orDash(dest), d["state"], d["attempt"], d["maxAttempts"], short(lastError))
	}
	_ = tw.Flush()
}

// printAttempts writes the attempts of an outbox row's message from the
// delivery ledger as a table, newest first, with the first line of each
// answer; nothing for an inbox row.
func printAttempts(w io.Writer, item map[string]any) {
	attempts, ok := item["attempts"].([]map[string]any)
	if !ok {
		return
	}
	if len(attempts) == 0 {
		fmt.Fprintln(w, "attempts: none in the delivery ledger")
		return
	}
	fmt.Fprintln(w, "attempts:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  STARTED\tATTEMPT\tDESTINATION\tOUTCOME\tCLASS\tSTATUS\tMS\tANSWER")
	for _, a := range attempts {
		started, _ := a["startedAt"].(time.Time)
		dest, _ := a["destination"].(string)
		text := func(key string) *string { p, _ := a[key].(*string); return p }
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", started.UTC().Format(time.RFC3339Nano), a["attempt"], orDash(dest),
			a["outcome"], deref(text("failureClass")), deref(text("status")), a["durationMs"], short(text("answer")))
	}
	_ = tw.Flush()
	if more, _ := item["attemptsTruncated"].(bool); more {
		fmt.Fprintf(w, "  (the newest %d; older attempts are left out)\n", len(attempts))
	}
}
