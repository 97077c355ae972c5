package admin

import (
	"context"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// pauseSlack is how much later than a pause's end a pending row may be
// due and still count as held by it: a paused destination's rows are
// moved to the pause's end by the same clock a moment after the pause is
// recorded, so their scheduled_at lies a few milliseconds past it.
const pauseSlack = 2 * time.Second

// pauses are the destination pauses that had not ended when a request
// read them, by destination, latest end first.
type pauses map[string][]queuebox.DestinationPause

// readPauses reads the pauses when rows holds a pending outbox row with a
// destination, the only rows a pause can explain; nil otherwise.
func (w *Workbench) readPauses(ctx context.Context, rows ...queuebox.Message) (pauses, error) {
	needed := false
	for _, m := range rows {
		if m.Table == queuebox.TableOutbox && m.State == queuebox.StatePending && w.pausedBy(m) != "" {
			needed = true
			break
		}
	}
	if !needed {
		return nil, nil
	}
	list, err := w.store.Pauses(ctx)
	if err != nil {
		return nil, err
	}
	out := pauses{}
	for _, p := range list {
		out[p.Destination] = append(out[p.Destination], p)
	}
	return out, nil
}

// pausedBy is the destination whose pause can hold back outbox row m:
// its own destination, or the one destination its route gives a row not
// routed yet; "" for a row not routed yet whose route fans out (it waits
// for its deliveries to be written, not for a pause).
func (w *Workbench) pausedBy(m queuebox.Message) string {
	if m.Destination != "" {
		return m.Destination
	}
	if names := w.destinationsOf(m.Topic); len(names) == 1 {
		return names[0]
	}
	return ""
}

// deferral is the "deferral" field of an outbox row: the pause that holds
// a pending row back, nil when none does. A row due after every pause of
// its destination ends waits for its own time (a retry's backoff), not
// for flow control. Of several replicas' pauses, the one that ends last
// is shown: until then some replica refuses the destination's rows.
func (ps pauses) deferral(m queuebox.Message, dest string) map[string]any {
	if m.State != queuebox.StatePending || dest == "" {
		return nil
	}
	list := ps[dest] // latest end first
	if len(list) == 0 || m.ScheduledAt.After(list[0].Until.Add(pauseSlack)) {
		return nil
	}
	p := list[0]
	return map[string]any{"reason": p.Reason, "until": p.Until.UTC(), "detail": p.Detail,
		"replica": p.Replica, "recordedAt": p.RecordedAt.UTC()}
}
