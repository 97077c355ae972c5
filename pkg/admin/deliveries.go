package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// DestinationsOf resolves a topic to the names of the destinations its
// route sends it to, in the route's order, with the poller's first-match
// rule; nil when no route matches.
type DestinationsOf func(topic string) []string

// MaxDeliveries bounds the deliveries of one message that the message
// view reads: one per destination of a route, so far fewer in practice.
const MaxDeliveries = 100

// ErrNoDelivery reports that a message has no delivery to the
// destination asked for.
var ErrNoDelivery = errors.New("no delivery to that destination")

// Destination is where an outbox row goes: its own destination once it
// is routed, else what the routes give its topic now (the names joined
// with ", " for a fan-out), "" when no route matches. routed says which.
func Destination(m queuebox.Message, destinationsOf DestinationsOf) (name string, routed bool) {
	if m.Destination != "" {
		return m.Destination, true
	}
	return strings.Join(destinationsOf(m.Topic), ", "), false
}

// goesTo says whether outbox row m is a delivery to dest: routed there,
// or not routed yet and its topic's route names dest.
func goesTo(m queuebox.Message, dest string, destinationsOf DestinationsOf) bool {
	if m.Destination != "" {
		return m.Destination == dest
	}
	return dest != "" && slices.Contains(destinationsOf(m.Topic), dest)
}

// Deliveries returns the outbox rows of the message that row m belongs
// to: the row the application wrote and the deliveries QueueBox added for
// it, discarded ones too, the application's row first and the others by
// destination. For a row that no fan-out touched it is m alone.
func Deliveries(ctx context.Context, store queuebox.WorkbenchStore, m queuebox.Message) ([]queuebox.Message, error) {
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, Message: m.MessageID(), WithDiscarded: true}
	page, err := store.List(ctx, f, MaxDeliveries, queuebox.Cursor{})
	if err != nil {
		return nil, fmt.Errorf("list the deliveries of message %s: %w", m.MessageID(), err)
	}
	rows := page.Items
	slices.SortStableFunc(rows, func(a, b queuebox.Message) int {
		if (a.OriginID == nil) != (b.OriginID == nil) {
			if a.OriginID == nil {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Destination, b.Destination)
	})
	return rows, nil
}

// DeliveryTo finds, among the rows of the message that outbox row id
// belongs to, the one that goes to dest (see Destination). It returns
// queuebox.ErrNotFound when no row has the id, ErrNoDelivery when the
// message has no delivery to dest.
func DeliveryTo(ctx context.Context, store queuebox.WorkbenchStore, id, dest string, destinationsOf DestinationsOf) (queuebox.Message, error) {
	m, err := store.Get(ctx, queuebox.TableOutbox, id)
	if err != nil {
		return m, err
	}
	rows, err := Deliveries(ctx, store, m)
	if err != nil {
		return m, err
	}
	for _, r := range rows {
		if goesTo(r, dest, destinationsOf) {
			return r, nil
		}
	}
	return m, fmt.Errorf("message %s: %w %s", m.MessageID(), ErrNoDelivery, dest)
}

// Pinned says whether a resend of delivery m to dest must also give the
// row that destination: a row with none whose route fans out would
// otherwise go to every destination of the route again.
func Pinned(m queuebox.Message, destinationsOf DestinationsOf) bool {
	return m.Destination == "" && len(destinationsOf(m.Topic)) > 1
}

// ResendTo moves delivery m (found by DeliveryTo) back to pending for
// dest alone: a resend of the row, or, for a row that has no destination
// yet and whose route fans out, a move that also gives it dest. Such a
// row takes no edit. It returns queuebox.ErrWrongState when the row is in
// no final state.
func ResendTo(ctx context.Context, store queuebox.WorkbenchStore, m queuebox.Message, dest string, edit queuebox.ResendEdit,
	destinationsOf DestinationsOf) (queuebox.ResendResult, error) {
	if !Pinned(m, destinationsOf) {
		return store.Resend(ctx, queuebox.TableOutbox, m.ID, edit)
	}
	if edit.Payload != nil || edit.Headers != nil {
		return queuebox.ResendResult{}, fmt.Errorf("%w: row %s has no destination of its own and its route fans out; resend it to %s without an edit",
			queuebox.ErrWrongState, m.ID, dest)
	}
	n, err := store.Move(ctx, queuebox.MessageFilter{Table: queuebox.TableOutbox, IDs: []string{m.ID}, Destination: dest,
		UnroutedTopics: []string{m.Topic}, WithDiscarded: true}, 1)
	if err != nil {
		return queuebox.ResendResult{}, err
	}
	if n == 0 {
		return queuebox.ResendResult{}, fmt.Errorf("%w: the row is %s", queuebox.ErrWrongState, m.State)
	}
	return queuebox.ResendResult{OldPayload: m.Payload, NewPayload: m.Payload}, nil
}

// UnroutedTopicsOf keeps the topics of candidates whose route names dest:
// the topics through which the rows without a destination of their own
// count as dest's (queuebox.MessageFilter.UnroutedTopics).
func UnroutedTopicsOf(candidates []string, dest string, destinationsOf DestinationsOf) []string {
	var out []string
	for _, t := range candidates {
		if dest != "" && slices.Contains(destinationsOf(t), dest) {
			out = append(out, t)
		}
	}
	return out
}
