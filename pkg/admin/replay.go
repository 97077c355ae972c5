package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/glob"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Replayer is the store side of the replay; see queuebox.WorkbenchStore.
type Replayer interface {
	Topics(ctx context.Context, f queuebox.MessageFilter) ([]string, error)
	Move(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error)
	Count(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error)
	JobCreate(ctx context.Context, f queuebox.MessageFilter, matched int64) (queuebox.ReplayJob, error)
}

// ReplayBatchRows is the most rows one request moves itself, in one
// statement (docs/workbench-api.md); a filter that selects more becomes a replay job (202), which
// the job runner of some process moves ReplayBatchRows at a time, each
// batch its own short transaction.
const ReplayBatchRows = 500

// replayRequest is the body of POST /admin/replay. Unknown fields are
// ignored. A list that is present but empty is still a filter: it names no
// row, so it moves nothing, even beside other fields.
type replayRequest struct {
	Table         *string  `json:"table"`
	States        []string `json:"states"`
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

// empty says whether the request sets no filter; table alone is none.
func (r replayRequest) empty() bool {
	return r.IDs == nil && r.Topic == nil && r.Topics == nil && r.Destination == nil &&
		r.CreatedAfter == nil && r.CreatedBefore == nil && r.States == nil
}

// NewReplay returns the handler of POST /admin/replay. It returns an
// error when opts has no credentials and is not Insecure.
func NewReplay(opts Options, store Replayer, destinationsOf DestinationsOf, log *slog.Logger) (echo.HandlerFunc, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	g := newGuard(opts)
	fail := func(c echo.Context) func(int, string) error {
		return func(code int, msg string) error { return c.JSON(code, map[string]string{"error": msg}) }
	}
	return func(c echo.Context) error {
		body, who, ok, err := g.write(c, fail(c))
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
		attrs := append([]any{"credential", who, "route", "POST /admin/replay"}, slog.Group("filter", req.logAttrs()...))
		filter, err := buildFilter(c.Request().Context(), req, store, destinationsOf)
		var invalid invalidRequest
		if errors.As(err, &invalid) {
			return fail(c)(http.StatusBadRequest, "Invalid request: "+invalid.Error())
		}
		if err != nil {
			log.Error("replay failed", append(attrs, "err", err)...)
			return fail(c)(http.StatusInternalServerError, "Replay failed")
		}
		r := replayRun{store: store, filter: filter, log: log, attrs: attrs, fail: fail(c)}
		if r.backfill, err = backfillOf(c.Request().Context(), store, filter, destinationsOf); err != nil {
			if errors.As(err, &invalid) {
				return fail(c)(http.StatusConflict, invalid.Error())
			}
			log.Error("replay failed", append(attrs, "err", err)...)
			return fail(c)(http.StatusInternalServerError, "Replay failed")
		}
		return r.run(c, req.DryRun)
	}, nil
}

// replayRun is one replay request after its filter is built: filter
// selects the rows to move, backfill (nil when the request names no
// destination, or none can be added) the messages to add a delivery to.
type replayRun struct {
	store    Replayer
	filter   queuebox.MessageFilter
	backfill *queuebox.MessageFilter
	log      *slog.Logger
	attrs    []any
	fail     func(int, string) error
}

// run counts, then moves a small set itself (the rows first, then the
// added deliveries, so none of those is moved again by this replay) or
// hands a large one to a job, which keeps the same order.
func (r replayRun) run(c echo.Context, dryRun bool) error {
	ctx := c.Request().Context()
	limit := ReplayBatchRows + 1
	if dryRun {
		limit = 0
	}
	selected, toAdd, err := r.count(ctx, limit)
	if err != nil {
		return r.failed(err)
	}
	if dryRun {
		r.log.Info("replay dry run", append(r.attrs, "would_move", selected, "would_add", toAdd)...)
		out := r.answer("wouldMove", selected, "wouldAdd", toAdd)
		// would_move is the name of the first versions, kept beside the
		// camelCase one for their clients; docs/openapi.yaml marks it
		// deprecated.
		out["would_move"] = selected
		return c.JSON(http.StatusOK, out)
	}
	if selected+toAdd > ReplayBatchRows {
		if selected, toAdd, err = r.count(ctx, 0); err != nil {
			return r.failed(err)
		}
		f := r.filter
		f.AddMissing = r.backfill != nil
		job, err := r.store.JobCreate(ctx, f, selected+toAdd)
		if err != nil {
			return r.failed(err)
		}
		r.log.Info("replay job created", append(r.attrs, "job", job.ID, "matched", selected+toAdd, "to_add", toAdd)...)
		answer := map[string]any{"job": job.ID, "matched": selected + toAdd}
		if r.backfill != nil && toAdd > 0 {
			answer["toAdd"] = toAdd
		}
		return c.JSON(http.StatusAccepted, answer)
	}
	moved, added := int64(0), int64(0)
	if canMatch(r.filter) {
		if moved, err = r.store.Move(ctx, r.filter, ReplayBatchRows); err != nil {
			return r.failed(err)
		}
	}
	if r.backfill != nil {
		if added, err = r.store.Move(ctx, *r.backfill, ReplayBatchRows); err != nil {
			return r.failed(err)
		}
	}
	r.log.Info("replay", append(r.attrs, "moved", moved, "added", added)...)
	return c.JSON(http.StatusOK, r.answer("moved", moved, "added", added))
}

// count counts the rows to move and the deliveries to add, each up to
// limit (0: every one).
func (r replayRun) count(ctx context.Context, limit int) (selected, toAdd int64, err error) {
	if canMatch(r.filter) {
		if selected, err = r.store.Count(ctx, r.filter, limit); err != nil {
			return 0, 0, err
		}
	}
	if r.backfill != nil {
		toAdd, err = r.store.Count(ctx, *r.backfill, limit)
	}
	return selected, toAdd, err
}

// answer is the body of a 200: the moved count, and the added count when
// the request named a destination.
func (r replayRun) answer(moveKey string, moved int64, addKey string, added int64) map[string]int64 {
	// The count of added deliveries appears only when there are some, so
	// every answer without a backfill keeps the documented shape.
	out := map[string]int64{moveKey: moved}
	if r.backfill != nil && added > 0 {
		out[addKey] = added
	}
	return out
}

func (r replayRun) failed(err error) error {
	r.log.Error("replay failed", append(r.attrs, "err", err)...)
	return r.fail(http.StatusInternalServerError, "Replay failed")
}

// backfillOf returns the selection of the messages that a replay of one
// destination gives a delivery they lack (queuebox.MessageFilter.Backfill):
// those the routes now send to the destination and that were routed
// elsewhere, typically before the destination joined their route. nil
// when the request names no destination. An outbox without the lane
// columns has no deliveries to add: its rows have no destination of
// their own, so the move already selects every row of the topics routed
// there; only when one of those routes fans out is that an error
// (invalidRequest, answered 409), since such a route needs the columns.
// A store that cannot add deliveries (errors.ErrUnsupported: SQL Server
// for now) is treated alike.
func backfillOf(ctx context.Context, store Replayer, f queuebox.MessageFilter, destinationsOf DestinationsOf) (*queuebox.MessageFilter, error) {
	if f.Destination == "" || f.Table != queuebox.TableOutbox {
		return nil, nil
	}
	b := f
	b.Backfill = true
	_, err := store.Count(ctx, b, 1)
	if !errors.Is(err, queuebox.ErrNoLanes) && !errors.Is(err, errors.ErrUnsupported) {
		return &b, err
	}
	why := "The outbox table has no lane columns (destination, origin_id)"
	if !errors.Is(err, queuebox.ErrNoLanes) {
		why = "The store cannot add deliveries (" + err.Error() + ")"
	}
	for _, t := range f.UnroutedTopics {
		if len(destinationsOf(t)) > 1 {
			return nil, invalidRequest(fmt.Sprintf("%s, so no delivery to %s can be added for the messages of topic %s, "+
				"whose route fans out; replay by ids instead.", why, f.Destination, t))
		}
	}
	return nil, nil
}

// matchTopics returns the topics of candidates that the glob pattern
// matches (an empty, non-nil list when none does): the replay's `topic`
// is a glob of routes, as the CLI's --topic and the Messages page's
// filter are, and a topic without `*` matches only itself.
func matchTopics(pattern string, candidates []string) ([]string, error) {
	p, err := glob.Compile(pattern)
	if err != nil {
		return nil, invalidRequest(fmt.Sprintf("topic: %v", err))
	}
	out := []string{}
	for _, t := range candidates {
		if p.Match(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// buildFilter turns the request into a store filter. topic and topics
// narrow one topic set: the intersection of what each names; an empty set
// means nothing can move. destination selects the rows routed to it (the
// destination column), and of the rows not routed yet those whose topic
// the routes send there, among the topics the rest of the filter selects.
func buildFilter(ctx context.Context, req replayRequest, store Replayer, destinationsOf DestinationsOf) (queuebox.MessageFilter, error) {
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox}
	var err error
	if req.Table != nil {
		if f.Table, err = parseTable(*req.Table); err != nil {
			return f, err
		}
	}
	if f.States, err = replayStates(f.Table, req.States); err != nil {
		return f, err
	}
	if f.Table == queuebox.TableInbox && (req.Topic != nil || req.Topics != nil || req.Destination != nil) {
		return f, invalidRequest("topic, topics and destination select outbox rows; the inbox has none")
	}
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
	var candidates []string // the topics of the rows the other filters select, read once
	var topics []string
	if req.Topic != nil {
		if candidates, err = store.Topics(ctx, f); err != nil {
			return f, err
		}
		if topics, err = matchTopics(*req.Topic, candidates); err != nil {
			return f, err
		}
	}
	if req.Topics != nil {
		topics = intersect(topics, req.Topics)
	}
	f.Topics = topics
	if req.Destination == nil || (topics != nil && len(topics) == 0) {
		return f, nil
	}
	if *req.Destination == "" {
		// An empty name is no destination: it must not select the rows
		// that no route takes, nor those not routed yet.
		f.Topics = []string{}
		return f, nil
	}
	if candidates == nil {
		if candidates, err = store.Topics(ctx, f); err != nil {
			return f, err
		}
	}
	f.Destination = *req.Destination
	// The store lists the candidates of every topic, so the topics the
	// request names narrow them here.
	for _, t := range UnroutedTopicsOf(candidates, f.Destination, destinationsOf) {
		if topics == nil || slices.Contains(topics, t) {
			f.UnroutedTopics = append(f.UnroutedTopics, t)
		}
	}
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
func canMatch(f queuebox.MessageFilter) bool {
	return (f.IDs == nil || len(f.IDs) > 0) && (f.Topics == nil || len(f.Topics) > 0) &&
		(f.States == nil || len(f.States) > 0)
}

// replayStates checks the states of a replay: final states of the table
// only (nil: all of them), since no replay moves a row that waits or runs.
func replayStates(t queuebox.Table, names []string) ([]queuebox.State, error) {
	if names == nil {
		return t.FinalStates(), nil
	}
	out := []queuebox.State{}
	for _, n := range names {
		if !slices.Contains(t.FinalStates(), queuebox.State(n)) {
			return nil, invalidRequest(fmt.Sprintf("states: %q is not a state a replay of the %s table moves (%s)", n, t, joinStates(t.FinalStates())))
		}
		out = append(out, queuebox.State(n))
	}
	return out, nil
}

// logAttrs renders the filter for the replay log line: the values, not
// pointers, and only the fields the request set, so an operator can find a
// replay and see exactly what it selected. Keys are the request's field
// names, so a search for a field finds the line.
func (r replayRequest) logAttrs() []any {
	var attrs []any
	if r.Table != nil {
		attrs = append(attrs, "table", *r.Table)
	}
	if r.States != nil {
		attrs = append(attrs, "states", r.States)
	}
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
