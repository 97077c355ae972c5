package admin

import (
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The windows of the destinations page: the chart's hour, and the
// recent minutes counted apart.
const (
	ActivityWindow = time.Hour
	RecentWindow   = 5 * time.Minute
)

// NoFlowNote is the note of a destinations answer from a process that
// does not run deliver: flow control lives in the memory of the deliver
// process, so only that process can show it.
const NoFlowNote = "This process does not run deliver: the flow-control state (breaker, deferrals, in flight) lives in the memory of the deliver process; ask its admin routes."

// SetDestinations gives the workbench the configured destinations, in
// the order the page lists them, and how to read the flow control of
// this process: flowOf returns nil while the process runs no deliver.
// Call it before the routes serve; it is not safe beside requests.
func (w *Workbench) SetDestinations(names []string, flowOf func() queuebox.FlowReader) {
	w.destNames, w.flowOf = slices.Clone(names), flowOf
}

// destinations answers GET /admin/destinations: each configured
// destination with its flow control, its pending rows and the ledger's
// attempts of the last hour, per minute.
func (w *Workbench) destinations(c echo.Context, _ string) error {
	act, err := w.store.DestinationActivity(c.Request().Context(), ActivityWindow, RecentWindow)
	if err != nil {
		return w.storeFailed(c, "read destinations", err)
	}
	var flows map[string]queuebox.DestinationFlow
	if w.flowOf != nil {
		if r := w.flowOf(); r != nil {
			flows = map[string]queuebox.DestinationFlow{}
			for _, f := range r.FlowStates() {
				flows[f.Destination] = f
			}
		}
	}
	names := slices.Clone(w.destNames)
	rows := map[string]*destinationRow{}
	row := func(name string) *destinationRow {
		if rows[name] == nil {
			rows[name] = &destinationRow{Minutes: []map[string]any{}}
			if !slices.Contains(names, name) {
				names = append(names, name) // a destination no longer configured that still has rows
			}
		}
		return rows[name]
	}
	for _, n := range w.destNames {
		row(n)
	}
	for _, p := range act.Pending {
		dests := []string{p.Destination}
		if p.Destination == "" {
			// A row not routed yet waits for every destination its route
			// will fan it out to.
			dests = w.destinationsOf(p.Topic)
		}
		for _, d := range dests {
			r := row(d)
			r.Pending += p.Rows
			r.Oldest = max(r.Oldest, p.Oldest)
		}
	}
	for _, m := range act.Minutes {
		r := row(m.Destination)
		r.Sent1h, r.Failed1h = r.Sent1h+m.Sent, r.Failed1h+m.Failed
		r.Sent5m, r.Failed5m = r.Sent5m+m.RecentSent, r.Failed5m+m.RecentFailed
		r.Minutes = append(r.Minutes, map[string]any{"minute": m.Minute, "sent": m.Sent, "failed": m.Failed})
	}
	items := make([]map[string]any, 0, len(names))
	for _, n := range names {
		items = append(items, rows[n].body(n, flows))
	}
	out := map[string]any{"items": items, "windowMinutes": int(ActivityWindow / time.Minute),
		"recentMinutes": int(RecentWindow / time.Minute), "flowNote": nil}
	if flows == nil {
		out["flowNote"] = NoFlowNote
	}
	return c.JSON(http.StatusOK, out)
}

// destinationRow gathers one destination's figures.
type destinationRow struct {
	Pending                            int64
	Oldest                             time.Duration
	Sent5m, Failed5m, Sent1h, Failed1h int64
	Minutes                            []map[string]any
}

func (r *destinationRow) body(name string, flows map[string]queuebox.DestinationFlow) map[string]any {
	var oldest *int64
	if r.Pending > 0 {
		ms := r.Oldest.Milliseconds()
		oldest = &ms
	}
	out := map[string]any{"name": name, "pending": r.Pending, "oldestPendingAgeMs": oldest,
		"sent5m": r.Sent5m, "failed5m": r.Failed5m, "sent1h": r.Sent1h, "failed1h": r.Failed1h,
		"minutes": r.Minutes, "flow": nil}
	if f, ok := flows[name]; ok {
		out["flow"] = map[string]any{"breaker": f.Breaker, "breakerEnabled": f.BreakerEnabled,
			"openUntil": f.OpenUntil, "pausedUntil": f.PausedUntil, "detail": nullable(f.Detail),
			"inFlight": f.InFlight, "maxInFlight": f.MaxInFlight, "deferred": f.Deferred}
	}
	return out
}
