package admin

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Workbench serves the operator's workbench routes: the message list,
// one message and its attempts, resend, discard, the overview, the replay
// jobs and whoami.
// Every GET passes the admin or the viewer credential; every POST only the
// admin credential (the viewer's gets 403). Each write logs one line with
// the credential, the route, the ids and the count. It is safe for
// concurrent use.
type Workbench struct {
	store          queuebox.WorkbenchStore
	routeOf        RouteOf
	destinationsOf DestinationsOf
	log            *slog.Logger
	g              *guard
	// destNames and flowOf feed the destinations page (SetDestinations).
	destNames []string
	flowOf    func() queuebox.FlowReader
}

// RouteOf resolves a topic to the pattern of the route that takes it and
// the names of that route's destinations, in its order, with the poller's
// first-match rule; "" and nil when no route matches.
type RouteOf func(topic string) (pattern string, destinations []string)

// NewWorkbench returns the workbench routes over store. It returns an
// error when opts has no credentials and is not Insecure.
func NewWorkbench(opts Options, store queuebox.WorkbenchStore, routeOf RouteOf, log *slog.Logger) (*Workbench, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	destinationsOf := func(topic string) []string { _, d := routeOf(topic); return d }
	return &Workbench{store: store, routeOf: routeOf, destinationsOf: destinationsOf, log: log, g: newGuard(opts)}, nil
}

// mount registers the routes on e.
func (w *Workbench) mount(e *echo.Echo) {
	e.GET("/admin/messages", w.reader(w.list))
	e.GET("/admin/messages/:id", w.reader(w.get))
	e.GET("/admin/messages/:id/attempts", w.reader(w.attempts))
	e.POST("/admin/messages/:id/resend", w.resend)
	e.POST("/admin/messages/:id/discard", w.discard)
	e.GET("/admin/overview", w.reader(w.overview))
	e.GET("/admin/undelivered", w.reader(w.undelivered))
	e.GET("/admin/destinations", w.reader(w.destinations))
	e.GET("/admin/replay", w.reader(w.jobs))
	e.GET("/admin/replay/:job", w.reader(w.job))
	e.GET("/admin/whoami", w.reader(func(c echo.Context, who string) error {
		role := "admin"
		if who == CredentialViewer {
			role = "viewer"
		}
		return c.JSON(http.StatusOK, map[string]string{"name": who, "role": role})
	}))
}

// fail writes the admin error body.
func fail(c echo.Context) func(int, string) error {
	return func(code int, msg string) error { return c.JSON(code, map[string]string{"error": msg}) }
}

// reader authenticates a GET with either credential.
func (w *Workbench) reader(h func(c echo.Context, who string) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		_, who, ok, err := w.g.read(c, fail(c))
		if !ok {
			return err
		}
		return h(c, who)
	}
}

// storeFailed logs a database failure once and answers 500.
func (w *Workbench) storeFailed(c echo.Context, what string, err error, attrs ...any) error {
	w.log.Error(what+" failed", append(attrs, "err", err)...)
	return fail(c)(http.StatusInternalServerError, "The database failed; see the log")
}

func (w *Workbench) list(c echo.Context, _ string) error {
	q, err := parseListQuery(c.QueryParams())
	if err == nil && (q.topic != "" || q.destination != "") {
		err = w.resolveTopics(c, &q)
	}
	var invalid invalidRequest
	if errors.As(err, &invalid) {
		return fail(c)(http.StatusBadRequest, invalid.Error())
	}
	if err != nil {
		return w.storeFailed(c, "list messages", err)
	}
	page, err := w.store.List(c.Request().Context(), q.filter, q.limit, q.after)
	if err != nil {
		return w.storeFailed(c, "list messages", err)
	}
	ps, err := w.readPauses(c.Request().Context(), page.Items...)
	if err != nil {
		return w.storeFailed(c, "list messages", err)
	}
	items := make([]map[string]any, len(page.Items))
	for i, m := range page.Items {
		items[i] = w.item(m, ps)
	}
	var next *string
	if page.Next != nil {
		s := encodeCursor(*page.Next)
		next = &s
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "nextCursor": next})
}

// resolveTopics narrows the outbox filter to the topics a glob selects,
// and to a destination: the rows routed there, and the rows not routed
// yet whose topic the routes send there, among the topics of the rows the
// rest of the filter selects.
func (w *Workbench) resolveTopics(c echo.Context, q *listQuery) error {
	candidates, err := w.store.Topics(c.Request().Context(), q.filter)
	if err != nil {
		return err
	}
	if q.topic != "" {
		topics := []string{}
		for _, t := range candidates {
			if q.match(t) {
				topics = append(topics, t)
			}
		}
		q.filter.Topics, candidates = topics, topics
	}
	if q.destination != "" {
		q.filter.Destination = q.destination
		q.filter.UnroutedTopics = UnroutedTopicsOf(candidates, q.destination, w.destinationsOf)
	}
	return nil
}

func (w *Workbench) get(c echo.Context, _ string) error {
	table, id, _, err := rowParams(c, false)
	if err != nil {
		return fail(c)(http.StatusBadRequest, err.Error())
	}
	m, err := w.store.Get(c.Request().Context(), table, id)
	if errors.Is(err, queuebox.ErrNotFound) {
		return fail(c)(http.StatusNotFound, fmt.Sprintf("No %s row has the id %s", table, id))
	}
	if err != nil {
		return w.storeFailed(c, "read message", err, "message_id", id)
	}
	ps, err := w.readPauses(c.Request().Context(), m)
	if err != nil {
		return w.storeFailed(c, "read message", err, "message_id", id)
	}
	out := w.whole(m, ps)
	if table == queuebox.TableOutbox {
		rows, err := Deliveries(c.Request().Context(), w.store, m)
		if err != nil {
			return w.storeFailed(c, "read message", err, "message_id", id)
		}
		deliveries := make([]map[string]any, len(rows))
		for i, r := range rows {
			deliveries[i] = w.delivery(r)
		}
		out["deliveries"] = deliveries
	}
	return c.JSON(http.StatusOK, out)
}

// target resolves the row a resend or a discard acts on: the row id
// names, or, with a destination, the delivery of the same message to that
// destination. code is non-zero when the request stops with it.
func (w *Workbench) target(c echo.Context, id, dest string) (queuebox.Message, int, string) {
	if dest == "" {
		return queuebox.Message{ID: id}, 0, ""
	}
	m, err := DeliveryTo(c.Request().Context(), w.store, id, dest, w.destinationsOf)
	switch {
	case err == nil:
		return m, 0, ""
	case errors.Is(err, queuebox.ErrNotFound):
		return m, http.StatusNotFound, fmt.Sprintf("No outbox row has the id %s", id)
	case errors.Is(err, ErrNoDelivery):
		return m, http.StatusNotFound, fmt.Sprintf("Message %s has no delivery to %s", m.MessageID(), dest)
	}
	return m, http.StatusInternalServerError, err.Error()
}

// resendBody is the optional body of a resend.
type resendBody struct {
	Payload json.RawMessage   `json:"payload"`
	Headers map[string]string `json:"headers"`
}

func (w *Workbench) resend(c echo.Context) error {
	body, who, ok, err := w.g.write(c, fail(c))
	if !ok {
		return err
	}
	table, id, dest, err := rowParams(c, true)
	if err != nil {
		return fail(c)(http.StatusBadRequest, err.Error())
	}
	var edit queuebox.ResendEdit
	if len(strings.TrimSpace(string(body))) > 0 {
		var b resendBody
		if err := json.Unmarshal(body, &b); err != nil {
			return fail(c)(http.StatusBadRequest, "Invalid request: "+describeJSONError(err))
		}
		if (b.Payload != nil || b.Headers != nil) && table != queuebox.TableOutbox {
			return fail(c)(http.StatusBadRequest, "payload, headers: only an outbox row takes an edit")
		}
		if b.Payload != nil {
			if string(b.Payload) == "null" {
				return fail(c)(http.StatusBadRequest, "payload: must be a JSON value, not null")
			}
			edit.Payload = b.Payload
		}
		if b.Headers != nil {
			edit.Headers, _ = json.Marshal(b.Headers)
		}
	}
	route := "POST /admin/messages/{id}/resend"
	m, code, msg := w.target(c, id, dest)
	if code == http.StatusInternalServerError {
		return w.storeFailed(c, "resend", errors.New(msg), "credential", who, "route", route, "message_id", id)
	}
	if code != 0 {
		return fail(c)(code, msg)
	}
	var res queuebox.ResendResult
	if dest == "" {
		res, err = w.store.Resend(c.Request().Context(), table, id, edit)
	} else {
		res, err = ResendTo(c.Request().Context(), w.store, m, dest, edit, w.destinationsOf)
	}
	id = m.ID
	if code, msg, failed := w.writeOutcome(table, id, err); failed {
		if code == http.StatusInternalServerError {
			return w.storeFailed(c, "resend", err, "credential", who, "route", route, "message_id", id)
		}
		return fail(c)(code, msg)
	}
	attrs := []any{"credential", who, "route", route, "table", string(table), "ids", []string{id}, "count", 1}
	if dest != "" {
		attrs = append(attrs, "destination", dest)
	}
	if edit.Payload != nil || edit.Headers != nil {
		attrs = append(attrs, "edited", true, "old_payload_sha256", digest(res.OldPayload),
			"new_payload_sha256", digest(res.NewPayload), "headers_edited", edit.Headers != nil)
	}
	w.log.Info("admin write", attrs...)
	return c.JSON(http.StatusOK, written(map[string]any{"id": id, "state": queuebox.StatePending}, dest))
}

func (w *Workbench) discard(c echo.Context) error {
	_, who, ok, err := w.g.write(c, fail(c))
	if !ok {
		return err
	}
	table, id, dest, err := rowParams(c, true)
	if err != nil {
		return fail(c)(http.StatusBadRequest, err.Error())
	}
	route := "POST /admin/messages/{id}/discard"
	m, code, msg := w.target(c, id, dest)
	if code == http.StatusInternalServerError {
		return w.storeFailed(c, "discard", errors.New(msg), "credential", who, "route", route, "message_id", id)
	}
	if code != 0 {
		return fail(c)(code, msg)
	}
	id = m.ID
	err = w.store.Discard(c.Request().Context(), table, id)
	if code, msg, failed := w.writeOutcome(table, id, err); failed {
		if code == http.StatusInternalServerError {
			return w.storeFailed(c, "discard", err, "credential", who, "route", route, "message_id", id)
		}
		return fail(c)(code, msg)
	}
	attrs := []any{"credential", who, "route", route, "table", string(table), "ids", []string{id}, "count", 1}
	if dest != "" {
		attrs = append(attrs, "destination", dest)
	}
	w.log.Info("admin write", attrs...)
	return c.JSON(http.StatusOK, written(map[string]any{"id": id, "discarded": true}, dest))
}

// written is the answer of a one-row write; a write through a destination
// names it beside the id of the delivery it moved.
func written(body map[string]any, dest string) map[string]any {
	if dest != "" {
		body["destination"] = dest
	}
	return body
}

// writeOutcome maps a store error of a one-row write to its answer.
func (w *Workbench) writeOutcome(table queuebox.Table, id string, err error) (int, string, bool) {
	switch {
	case err == nil:
		return 0, "", false
	case errors.Is(err, queuebox.ErrNotFound):
		return http.StatusNotFound, fmt.Sprintf("No %s row has the id %s", table, id), true
	case errors.Is(err, queuebox.ErrWrongState):
		return http.StatusConflict, err.Error(), true
	}
	return http.StatusInternalServerError, "", true
}

// digest is the hexadecimal SHA-256 of a payload's stored text: what the
// log keeps of an edit, never the payload.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// encodeCursor makes the opaque text of a cursor.
func encodeCursor(cur queuebox.Cursor) string {
	b, _ := json.Marshal(cur)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads the text encodeCursor made for a page of table: an
// outbox cursor holds a positive sequence only, an inbox cursor a time and
// a row id only. Anything else, an unknown field included, is an
// invalidRequest naming the parameter, never a query the store would
// fail on.
func decodeCursor(s string, table queuebox.Table) (queuebox.Cursor, error) {
	var cur queuebox.Cursor
	bad := invalidRequest(fmt.Sprintf("cursor: not a cursor of a previous %s page", table))
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cur, bad
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(&cur) != nil || dec.More() {
		return queuebox.Cursor{}, bad
	}
	if !cursorFits(cur, table) {
		return queuebox.Cursor{}, bad
	}
	return cur, nil
}

// cursorFits reports whether cur has the shape of a cursor of table.
func cursorFits(cur queuebox.Cursor, table queuebox.Table) bool {
	if table == queuebox.TableOutbox {
		// A cursor made before the deliveries of a fan-out shared a
		// sequence holds none of the id.
		if cur.Sequence <= 0 || !cur.CreatedAt.IsZero() {
			return false
		}
		if cur.ID == "" {
			return true
		}
	} else if cur.Sequence != 0 || cur.CreatedAt.IsZero() || cur.ID == "" {
		return false
	}
	_, err := uuid.Parse(cur.ID)
	return err == nil
}
