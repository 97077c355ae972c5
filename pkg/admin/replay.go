package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// Replayer is the store side of the replay.
type Replayer interface {
	Topics(ctx context.Context, f postgres.ReplayFilter) ([]string, error)
	Move(ctx context.Context, f postgres.ReplayFilter) (int64, error)
}

// DestinationOf resolves a topic to the destination the routes send it to,
// with the poller's first-match rule; "" when no route matches.
type DestinationOf func(topic string) string

// replayRequest is the body of POST /admin/replay. Unknown fields are
// ignored.
type replayRequest struct {
	IDs           []string   `json:"ids"`
	Topic         *string    `json:"topic"`
	Topics        []string   `json:"topics"`
	Destination   *string    `json:"destination"`
	CreatedAfter  *time.Time `json:"createdAfter"`
	CreatedBefore *time.Time `json:"createdBefore"`
}

func (r replayRequest) empty() bool {
	return len(r.IDs) == 0 && r.Topic == nil && len(r.Topics) == 0 && r.Destination == nil &&
		r.CreatedAfter == nil && r.CreatedBefore == nil
}

// NewReplay returns the handler of POST /admin/replay.
func NewReplay(cfg config.Admin, store Replayer, destinationOf DestinationOf, log *slog.Logger) (echo.HandlerFunc, error) {
	g, err := newGuard(cfg)
	if err != nil {
		return nil, err
	}
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
			return fail(c)(http.StatusBadRequest, "Invalid request: "+err.Error())
		}
		if req.empty() {
			return fail(c)(http.StatusBadRequest, "A replay needs at least one filter.")
		}
		filter, err := buildFilter(c.Request().Context(), req, store, destinationOf)
		if err != nil {
			return fail(c)(http.StatusBadRequest, "Invalid request: "+err.Error())
		}
		moved := int64(0)
		if filter.Topics == nil || len(filter.Topics) > 0 {
			if moved, err = store.Move(c.Request().Context(), filter); err != nil {
				log.Error("replay failed", "err", err)
				return fail(c)(http.StatusInternalServerError, "Replay failed")
			}
		}
		log.Info("replay", "moved", moved, "ids", len(req.IDs), "topic", req.Topic, "topics", req.Topics,
			"destination", req.Destination, "created_after", req.CreatedAfter, "created_before", req.CreatedBefore)
		return c.JSON(http.StatusOK, map[string]int64{"moved": moved})
	}, nil
}

// buildFilter turns the request into a store filter. topic, topics and
// destination narrow one topic set: the intersection of what each names.
// An empty set means nothing can move.
func buildFilter(ctx context.Context, req replayRequest, store Replayer, destinationOf DestinationOf) (postgres.ReplayFilter, error) {
	f := postgres.ReplayFilter{CreatedAfter: req.CreatedAfter, CreatedBefore: req.CreatedBefore}
	for _, id := range req.IDs {
		if _, err := uuid.Parse(id); err != nil {
			return f, fmt.Errorf("ids: %q is not a UUID", id)
		}
	}
	if len(req.IDs) > 0 {
		f.IDs = req.IDs
	}
	var topics []string
	if req.Topic != nil {
		topics = []string{*req.Topic}
	}
	if len(req.Topics) > 0 {
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
		if destinationOf(t) == *req.Destination {
			routed = append(routed, t)
		}
	}
	f.Topics = routed
	return f, nil
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
