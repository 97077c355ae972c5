package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/glob"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The bounds of a page of GET /admin/messages.
const (
	DefaultPageRows = 50
	MaxPageRows     = 500
)

// listQuery is the parsed query of GET /admin/messages.
type listQuery struct {
	filter      queuebox.MessageFilter
	limit       int
	after       queuebox.Cursor
	topic       string
	match       func(string) bool
	destination string
}

// listParams are the parameters GET /admin/messages knows; any other is
// refused, so a misspelt filter never lists everything.
var listParams = map[string]bool{"table": true, "state": true, "topic": true, "destination": true, "source": true,
	"key": true, "error": true, "createdAfter": true, "createdBefore": true, "limit": true, "cursor": true, "discarded": true}

// parseListQuery reads the query of GET /admin/messages; an error names
// the parameter.
func parseListQuery(v url.Values) (listQuery, error) {
	q := listQuery{limit: DefaultPageRows}
	for name := range v {
		if !listParams[name] {
			return q, invalidRequest(fmt.Sprintf("%s: not a parameter of this route", name))
		}
	}
	var err error
	if q.filter.Table, err = parseTable(v.Get("table")); err != nil {
		return q, err
	}
	t := q.filter.Table
	for _, s := range v["state"] {
		if !containsState(t.States(), queuebox.State(s)) {
			return q, invalidRequest(fmt.Sprintf("state: %q is no state of the %s table (%s)", s, t, joinStates(t.States())))
		}
		q.filter.States = append(q.filter.States, queuebox.State(s))
	}
	outboxOnly := map[string]string{"topic": v.Get("topic"), "destination": v.Get("destination")}
	for name, val := range outboxOnly {
		if val != "" && t != queuebox.TableOutbox {
			return q, invalidRequest(name + ": filters outbox rows only")
		}
	}
	if v.Get("source") != "" && t != queuebox.TableInbox {
		return q, invalidRequest("source: filters inbox rows only")
	}
	q.topic, q.destination = v.Get("topic"), v.Get("destination")
	if q.topic != "" {
		p, err := glob.Compile(q.topic)
		if err != nil {
			return q, invalidRequest(fmt.Sprintf("topic: %v", err))
		}
		q.match = p.Match
	}
	q.filter.Source, q.filter.Key, q.filter.Error = v.Get("source"), v.Get("key"), v.Get("error")
	for _, b := range []struct {
		name string
		dst  **time.Time
	}{{"createdAfter", &q.filter.CreatedAfter}, {"createdBefore", &q.filter.CreatedBefore}} {
		if s := v.Get(b.name); s != "" {
			if *b.dst, err = parseInstant(b.name, &s); err != nil {
				return q, err
			}
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxPageRows {
			return q, invalidRequest(fmt.Sprintf("limit: %q is not a whole number from 1 to %d", s, MaxPageRows))
		}
		q.limit = n
	}
	if s := v.Get("cursor"); s != "" {
		if q.after, err = decodeCursor(s, t); err != nil {
			return q, err
		}
	}
	if s := v.Get("discarded"); s != "" {
		if q.filter.WithDiscarded, err = strconv.ParseBool(s); err != nil {
			return q, invalidRequest(fmt.Sprintf("discarded: %q is not true or false", s))
		}
	}
	return q, nil
}

// parseTable reads the table parameter: outbox (the default) or inbox.
func parseTable(s string) (queuebox.Table, error) {
	switch s {
	case "", string(queuebox.TableOutbox):
		return queuebox.TableOutbox, nil
	case string(queuebox.TableInbox):
		return queuebox.TableInbox, nil
	}
	return "", invalidRequest(fmt.Sprintf("table: %q is neither outbox nor inbox", s))
}

// rowParams reads the table and the id of a one-row route and, when
// withDestination (resend, discard), the destination whose delivery of
// the message the route acts on ("" for the row itself).
func rowParams(c echo.Context, withDestination bool) (queuebox.Table, string, string, error) {
	for name := range c.QueryParams() {
		if name != "table" && (name != "destination" || !withDestination) {
			return "", "", "", invalidRequest(fmt.Sprintf("%s: not a parameter of this route", name))
		}
	}
	table, err := parseTable(c.QueryParam("table"))
	if err != nil {
		return "", "", "", err
	}
	u, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return "", "", "", invalidRequest(fmt.Sprintf("id: %q is not a UUID", c.Param("id")))
	}
	dest := c.QueryParam("destination")
	if c.QueryParams().Has("destination") && dest == "" {
		return "", "", "", invalidRequest("destination: give the name of a destination")
	}
	if dest != "" && table != queuebox.TableOutbox {
		return "", "", "", invalidRequest("destination: selects a delivery of an outbox row only")
	}
	return table, u.String(), dest, nil
}

func containsState(states []queuebox.State, s queuebox.State) bool {
	for _, x := range states {
		if x == s {
			return true
		}
	}
	return false
}

func joinStates(states []queuebox.State) string {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// item is the list shape of a row (no payload, no headers); ps are the
// destination pauses that explain a deferred pending outbox row.
func (w *Workbench) item(m queuebox.Message, ps pauses) map[string]any {
	if m.Table == queuebox.TableInbox {
		return map[string]any{"id": m.ID, "source": m.Source, "state": m.State, "eventType": m.EventType,
			"aggregateId": m.AggregateID, "idempotencyKey": m.IdempotencyKey, "consumption": m.Consumption,
			"attempt": m.Attempt, "lastError": m.LastError, "receivedAt": m.CreatedAt, "processedAt": m.ProcessedAt,
			"discarded": m.DiscardedAt != nil}
	}
	d, routed := Destination(m, w.destinationsOf)
	return map[string]any{"id": m.ID, "state": m.State, "topic": m.Topic, "key": m.Key, "attempt": m.Attempt,
		"maxAttempts": m.MaxAttempts, "lastError": m.LastError, "createdAt": m.CreatedAt, "scheduledAt": m.ScheduledAt,
		"sentAt": m.SentAt, "destination": nullable(d), "routed": routed, "origin": m.OriginID,
		"discarded": m.DiscardedAt != nil, "deferral": ps.deferral(m, w.pausedBy(m))}
}

// nullable is a name, or JSON null for none.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// delivery is the shape of one delivery of a message in the message view.
func (w *Workbench) delivery(m queuebox.Message) map[string]any {
	d, routed := Destination(m, w.destinationsOf)
	return map[string]any{"id": m.ID, "destination": nullable(d), "routed": routed, "origin": m.OriginID,
		"state": m.State, "attempt": m.Attempt, "maxAttempts": m.MaxAttempts, "lastError": m.LastError,
		"scheduledAt": m.ScheduledAt, "sentAt": m.SentAt, "discarded": m.DiscardedAt != nil}
}

// whole is the shape of one row: the list fields, the payload and headers
// as JSON, and every other column.
func (w *Workbench) whole(m queuebox.Message, ps pauses) map[string]any {
	out := w.item(m, ps)
	out["payload"] = rawOrNull(m.Payload)
	out["headers"] = rawOrNull(m.Headers)
	out["discardedAt"] = m.DiscardedAt
	out["claimedAt"] = m.ClaimedAt
	out["claimToken"] = m.ClaimToken
	out["leaseExpiresAt"] = m.LeaseExpiry
	if m.Table == queuebox.TableInbox {
		out["correlationId"] = m.CorrelationID
		out["scheduledAt"] = m.ScheduledAt
		return out
	}
	out["aggregateType"] = m.AggregateType
	out["updatedAt"] = m.UpdatedAt
	out["sequence"] = m.Sequence
	out["messageId"] = m.MessageID()
	// The pattern of the first route that matches, null when none does.
	if pattern, _ := w.routeOf(m.Topic); pattern != "" {
		out["route"] = pattern
	} else {
		out["route"] = nil
	}
	return out
}

// rawOrNull passes stored JSON text through as JSON.
func rawOrNull(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return jsonText(b)
}

// jsonText is stored JSON text that encodes as itself.
type jsonText []byte

// MarshalJSON implements json.Marshaler.
func (j jsonText) MarshalJSON() ([]byte, error) { return j, nil }

func (w *Workbench) overview(c echo.Context, _ string) error {
	o, err := w.store.Overview(c.Request().Context())
	if err != nil {
		return w.storeFailed(c, "overview", err)
	}
	counts := func(m map[queuebox.State]int64, t queuebox.Table, discarded int64) map[string]int64 {
		out := map[string]int64{"discarded": discarded}
		for _, s := range t.States() {
			out[string(s)] = m[s]
		}
		return out
	}
	byDestination := map[string]float64{}
	for topic, age := range o.OldestPendingByTopic {
		// The overview counts by topic: a fan-out's pending rows count
		// under each destination of its route.
		for _, d := range w.destinationsOf(topic) {
			byDestination[d] = max(byDestination[d], age.Seconds())
		}
	}
	bySource := map[string]float64{}
	for s, age := range o.OldestPendingBySource {
		bySource[s] = age.Seconds()
	}
	// The store keeps the top queuebox.OverviewTop topics of each map and
	// sums the rest, which the answer carries beside the map: topics are
	// the senders' choice, and the page polls this every few seconds.
	pendingOther := otherBody(o.OldestPendingByTopicOther)
	pendingOther["oldest"] = o.OldestPendingByTopicOther.OldestPending.Seconds()
	return c.JSON(http.StatusOK, map[string]any{
		"outbox": counts(o.Outbox, queuebox.TableOutbox, o.OutboxDiscarded),
		"inbox":  counts(o.Inbox, queuebox.TableInbox, o.InboxDiscarded),
		"oldestPending": map[string]any{"destinations": byDestination, "sources": bySource,
			"otherTopics": pendingOther},
		"deadByTopic":      o.DeadByTopic,
		"deadByTopicOther": otherBody(o.DeadByTopicOther),
		"deadBySource":     o.DeadBySource,
	})
}

// otherBody is the answer shape of the topics an overview map leaves out.
func otherBody(o queuebox.OverviewOther) map[string]any {
	return map[string]any{"topics": o.Names, "rows": o.Rows}
}

// jobBody is the answer shape of one replay job.
func jobBody(j queuebox.ReplayJob) map[string]any {
	return map[string]any{"job": j.ID, "table": j.Filter.Table, "matched": j.Matched, "moved": j.Moved, "done": j.Done,
		"error": j.Error, "createdAt": j.CreatedAt, "finishedAt": j.FinishedAt}
}

func (w *Workbench) job(c echo.Context, _ string) error {
	id, err := uuid.Parse(c.Param("job"))
	if err != nil {
		return fail(c)(http.StatusBadRequest, fmt.Sprintf("job: %q is not a job id", c.Param("job")))
	}
	j, err := w.store.JobGet(c.Request().Context(), id.String())
	if err == nil {
		return c.JSON(http.StatusOK, jobBody(j))
	}
	if err == queuebox.ErrNotFound {
		return fail(c)(http.StatusNotFound, "No replay job has the id "+id.String())
	}
	return w.storeFailed(c, "read replay job", err)
}

// recentJobs is how many jobs GET /admin/replay lists.
const recentJobs = 50

func (w *Workbench) jobs(c echo.Context, _ string) error {
	jobs, err := w.store.JobList(c.Request().Context(), recentJobs)
	if err != nil {
		return w.storeFailed(c, "list replay jobs", err)
	}
	items := make([]map[string]any, len(jobs))
	for i, j := range jobs {
		items[i] = jobBody(j)
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items})
}
