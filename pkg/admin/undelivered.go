package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// DefaultUndeliveredSince is how far back the undelivered view looks
// when the request names no since.
const DefaultUndeliveredSince = 24 * time.Hour

// undeliveredQuery is a parsed GET /admin/undelivered.
type undeliveredQuery struct {
	filter queuebox.UndeliveredFilter
	limit  int
	after  queuebox.Cursor
}

// parseUndelivered reads destination, since (an RFC 3339 instant, or a
// positive Go duration such as 1h or 90m counted back from now), limit
// and cursor; each bad value is an invalidRequest naming its parameter.
func parseUndelivered(v url.Values, now time.Time) (undeliveredQuery, error) {
	q := undeliveredQuery{limit: DefaultPageRows,
		filter: queuebox.UndeliveredFilter{Since: now.Add(-DefaultUndeliveredSince), Destination: v.Get("destination")}}
	for name := range v {
		switch name {
		case "destination", "since", "limit", "cursor":
		default:
			return q, invalidRequest(fmt.Sprintf("%s: not a parameter of /admin/undelivered (destination, since, limit, cursor)", name))
		}
	}
	if s := v.Get("since"); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			q.filter.Since = now.Add(-d)
		} else if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			q.filter.Since = t
		} else {
			return q, invalidRequest(fmt.Sprintf("since: %q is neither an RFC 3339 instant such as 2026-09-01T00:00:00Z nor a duration such as 1h", s))
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
		var err error
		if q.after, err = decodeCursor(s, queuebox.TableOutbox); err != nil {
			return q, err
		}
	}
	return q, nil
}

// undelivered answers GET /admin/undelivered: one page of the outbox
// rows that ended dead or keep retrying, with the counts of the whole
// selection per destination and per failure class.
func (w *Workbench) undelivered(c echo.Context, _ string) error {
	q, err := parseUndelivered(c.QueryParams(), time.Now())
	if err != nil {
		return fail(c)(http.StatusBadRequest, err.Error())
	}
	page, err := w.store.Undelivered(c.Request().Context(), q.filter, q.limit, q.after)
	if err != nil {
		return w.storeFailed(c, "list undelivered", err)
	}
	items := make([]map[string]any, len(page.Items))
	for i, u := range page.Items {
		item := w.item(u.Message, nil)
		delete(item, "deferral")
		item["failureClass"] = nullable(string(u.Class))
		item["lastOutcome"] = nullable(string(u.LastOutcome))
		item["lastStatus"] = nullable(u.Status)
		item["lastAttemptAt"] = u.LastAttempt
		items[i] = item
	}
	byDest, byClass := map[string]map[string]int64{}, map[string]int64{}
	var dead, retrying int64
	for _, n := range page.Counts {
		d := n.Destination
		if d == "" {
			d = Unrouted
		}
		if byDest[d] == nil {
			byDest[d] = map[string]int64{"dead": 0, "retrying": 0}
		}
		byDest[d]["dead"] += n.Dead
		byDest[d]["retrying"] += n.Retrying
		class := string(n.Class)
		if class == "" {
			class = Unclassified
		}
		byClass[class] += n.Dead + n.Retrying
		dead, retrying = dead+n.Dead, retrying+n.Retrying
	}
	var next *string
	if page.Next != nil {
		s := encodeCursor(*page.Next)
		next = &s
	}
	return c.JSON(http.StatusOK, map[string]any{"since": q.filter.Since.UTC(), "destination": nullable(q.filter.Destination),
		"dead": dead, "retrying": retrying, "byDestination": byDest, "byClass": byClass, "items": items, "nextCursor": next})
}

// Unrouted names, in the counts of the undelivered view, the rows that
// have no destination yet (a row no route took goes dead unrouted).
const Unrouted = "(unrouted)"

// Unclassified names, in the counts by class, the rows whose latest
// attempt the ledger does not hold (the ledger off, or cleaned by its
// retention): their lastError says what happened.
const Unclassified = "unclassified"
