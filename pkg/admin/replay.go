package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Replayer is the store side of the replay; see queuebox.Replayer.
type Replayer interface {
	Topics(ctx context.Context, f queuebox.ReplayFilter) ([]string, error)
	Move(ctx context.Context, f queuebox.ReplayFilter, limit int) (int64, error)
	Count(ctx context.Context, f queuebox.ReplayFilter, limit int) (int64, error)
}

// The bounds of one replay request (docs/security.md; an addition to the
// HTTP API). A request whose filter selects more than MaxReplayRows sent
// and dead rows is refused with 400 and moves nothing: the caller narrows
// the filter (createdAfter and createdBefore walk a backlog window by
// window) and sees the size first with "dryRun": true. The rows move
// ReplayBatchRows per statement, each its own short transaction.
const (
	MaxReplayRows   = 10000
	ReplayBatchRows = 500
)

// DestinationOf resolves a topic to the destination the routes send it to,
// with the poller's first-match rule; "" when no route matches.
type DestinationOf func(topic string) string

// replayRequest is the body of POST /admin/replay. Unknown fields are
// ignored. A list that is present but empty is still a filter: it names no
// row, so it moves nothing, even beside other fields.
type replayRequest struct {
	IDs           []string `json:"ids"`
	Topic         *string  `json:"topic"`
	Topics        []string `json:"topics"`
	Destination   *string  `json:"destination"`
	CreatedAfter  *string  `json:"createdAfter"`
	CreatedBefore *string  `json:"createdBefore"`
	// DryRun counts the rows the filter selects and moves none; it is no
	// filter itself.
	DryRun bool `json:"dryRun"`
}

func (r replayRequest) empty() bool {
	return r.IDs == nil && r.Topic == nil && r.Topics == nil && r.Destination == nil &&
		r.CreatedAfter == nil && r.CreatedBefore == nil
}

// NewReplay returns the handler of POST /admin/replay. It returns an
// error when opts has no credentials and is not Insecure.
func NewReplay(opts Options, store Replayer, destinationOf DestinationOf, log *slog.Logger) (echo.HandlerFunc, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	g := newGuard(opts)
	fail := func(c echo.Context) func(int, string) error {
		return func(code int, msg string) error { return c.JSON(code, map[string]string{"error": msg}) }
	}
	return func(c echo.Context) error {
		body, ok, err := g.read(c, fail(c))
		if !ok {
			return err
		}
		var req replayRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return fail(c)(http.StatusBadRequest, "Invalid request: "+describeJSONError(err))
		}
		if req.empty() {
			return fail(c)(http.StatusBadRequest, "A replay needs at least one filter.")
		}
		filter, err := buildFilter(c.Request().Context(), req, store, destinationOf)
		var invalid invalidRequest
		if errors.As(err, &invalid) {
			return fail(c)(http.StatusBadRequest, "Invalid request: "+invalid.Error())
		}
		if err != nil {
			log.Error("replay failed", slog.Group("filter", req.logAttrs()...), "err", err)
			return fail(c)(http.StatusInternalServerError, "Replay failed")
		}
		ctx := c.Request().Context()
		selected := int64(0)
		if canMatch(filter) {
			limit := MaxReplayRows + 1
			if req.DryRun {
				limit = 0
			}
			if selected, err = store.Count(ctx, filter, limit); err != nil {
				log.Error("replay failed", slog.Group("filter", req.logAttrs()...), "err", err)
				return fail(c)(http.StatusInternalServerError, "Replay failed")
			}
		}
		if req.DryRun {
			log.Info("replay dry run", slog.Group("filter", req.logAttrs()...), "would_move", selected)
			return c.JSON(http.StatusOK, map[string]int64{"would_move": selected})
		}
		if selected > MaxReplayRows {
			return fail(c)(http.StatusBadRequest, fmt.Sprintf(
				"The filter selects more than %d rows, the most that one replay moves; narrow it, for example with createdAfter and createdBefore", MaxReplayRows))
		}
		moved := int64(0)
		if canMatch(filter) {
			if moved, err = moveInBatches(ctx, store, filter); err != nil {
				log.Error("replay failed", slog.Group("filter", req.logAttrs()...), "moved", moved, "err", err)
				return fail(c)(http.StatusInternalServerError, "Replay failed")
			}
		}
		log.Info("replay", slog.Group("filter", req.logAttrs()...), "moved", moved)
		return c.JSON(http.StatusOK, map[string]int64{"moved": moved})
	}, nil
}

// moveInBatches moves the selected rows ReplayBatchRows at a time until a
// batch comes back short, and never more than MaxReplayRows in all: rows
// that turn sent or dead while it runs cannot stretch one request.
func moveInBatches(ctx context.Context, store Replayer, f queuebox.ReplayFilter) (int64, error) {
	var moved int64
	for moved < MaxReplayRows {
		n, err := store.Move(ctx, f, int(min(ReplayBatchRows, MaxReplayRows-moved)))
		moved += n
		if err != nil || n < ReplayBatchRows {
			return moved, err
		}
	}
	return moved, nil
}

// buildFilter turns the request into a store filter. topic, topics and
// destination narrow one topic set: the intersection of what each names.
// An empty set means nothing can move.
func buildFilter(ctx context.Context, req replayRequest, store Replayer, destinationOf DestinationOf) (queuebox.ReplayFilter, error) {
	var f queuebox.ReplayFilter
	var err error
	if f.CreatedAfter, err = parseInstant("createdAfter", req.CreatedAfter); err != nil {
		return f, err
	}
	if f.CreatedBefore, err = parseInstant("createdBefore", req.CreatedBefore); err != nil {
		return f, err
	}
	if req.IDs != nil {
		// The canonical text, so every form uuid.Parse accepts also casts
		// in the database.
		f.IDs = make([]string, 0, len(req.IDs))
		for _, id := range req.IDs {
			u, err := uuid.Parse(id)
			if err != nil {
				return f, invalidRequest(fmt.Sprintf("ids: %q is not a UUID", id))
			}
			f.IDs = append(f.IDs, u.String())
		}
	}
	var topics []string
	if req.Topic != nil {
		topics = []string{*req.Topic}
	}
	if req.Topics != nil {
		topics = intersect(topics, req.Topics)
	}
	f.Topics = topics
	if req.Destination == nil || (topics != nil && len(topics) == 0) {
		return f, nil
	}
	candidates, err := store.Topics(ctx, f)
	if err != nil {
		return f, err
	}
	routed := []string{}
	for _, t := range candidates {
		// A topic that no route matches resolves to "", which is no
		// destination: an empty name must not select the unrouted rows.
		if *req.Destination != "" && destinationOf(t) == *req.Destination {
			routed = append(routed, t)
		}
	}
	f.Topics = routed
	return f, nil
}

// invalidRequest is a request the caller must correct (400), as opposed to
// a failure of the database (500).
type invalidRequest string

func (e invalidRequest) Error() string { return string(e) }

// parseInstant reads an ISO-8601 instant with a zone, as 2026-09-01T00:00:00Z
// or with an offset; nil stays nil.
func parseInstant(field string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return nil, invalidRequest(fmt.Sprintf("%s: %q is not an ISO-8601 instant such as 2026-09-01T00:00:00Z", field, *v))
	}
	return &t, nil
}

// canMatch is false when a list filter is present but empty: such a
// filter selects no row, so the statement need not run.
func canMatch(f queuebox.ReplayFilter) bool {
	return (f.IDs == nil || len(f.IDs) > 0) && (f.Topics == nil || len(f.Topics) > 0)
}

// logAttrs renders the filter for the replay log line: the values, not
// pointers, and only the fields the request set, so an operator can find a
// replay and see exactly what it selected. Keys are the request's field
// names, so a search for a field finds the line.
func (r replayRequest) logAttrs() []any {
	var attrs []any
	if r.IDs != nil {
		attrs = append(attrs, "ids", r.IDs)
	}
	if r.Topic != nil {
		attrs = append(attrs, "topic", *r.Topic)
	}
	if r.Topics != nil {
		attrs = append(attrs, "topics", r.Topics)
	}
	if r.Destination != nil {
		attrs = append(attrs, "destination", *r.Destination)
	}
	if r.CreatedAfter != nil {
		attrs = append(attrs, "createdAfter", *r.CreatedAfter)
	}
	if r.CreatedBefore != nil {
		attrs = append(attrs, "createdBefore", *r.CreatedBefore)
	}
	if r.DryRun {
		attrs = append(attrs, "dryRun", true)
	}
	return attrs
}

// intersect narrows base (nil: every topic) to the entries of also.
func intersect(base, also []string) []string {
	if base == nil {
		return append([]string{}, also...)
	}
	keep := map[string]bool{}
	for _, t := range also {
		keep[t] = true
	}
	out := []string{}
	for _, t := range base {
		if keep[t] {
			out = append(out, t)
		}
	}
	return out
}
