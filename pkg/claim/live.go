package claim

import (
	"fmt"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// ErrLeaseEnding is the cause with which Live ends the context of an item
// whose lease runs out too soon to start its work. It matches
// queuebox.ErrLeaseLost: the handler treats it as a lost lease.
var ErrLeaseEnding = fmt.Errorf("%w: too little of the lease is left to start the work", queuebox.ErrLeaseLost)

// liveShare is the share of LeaseDuration that must be left for Live to
// report true: a quarter. Renewals come every third of the lease, so a
// lease whose renewals succeed never gets this close to its end; one that
// does has missed its renewals (the database is away, or the process was
// stopped) and is likely gone by the time a publish and its outcome write
// would end.
const liveShare = 4

// Live reports whether the item of lease is still held with at least a
// quarter of LeaseDuration left, by the local monotonic clock counted from
// the moment its claim, or its last renewal that found it, was sent (the
// database starts the lease later than that, so the local count never
// runs ahead of the database's). A handler asks right before an effect
// that the claim fence cannot undo, a publish: a replica that was stopped
// past its lease, or cut off from the database, would otherwise publish a
// row that another replica has taken and delivered meanwhile.
//
// When Live reports false, the item's context has ended with
// ErrLeaseEnding (or, for a lease already known lost, ErrLeaseLost): the
// loop gives the lease up and renews it no more, and the row returns to
// pending when its lease ends, for this or another replica to deliver.
// The handler must write nothing for the item and end it as a lost lease;
// the loop reports the loss (Hooks.Lost) as for a loss a renewal found.
// A loop without a LeaseDuration reports true for every held item. Live
// is safe for concurrent use.
func (l *Loop[T]) Live(lease Lease) bool {
	l.mu.Lock()
	h, ok := l.held[lease.ID]
	if !ok || h.lease.Token != lease.Token || h.lost {
		l.mu.Unlock()
		return false
	}
	d := l.cfg.LeaseDuration
	if d <= 0 || time.Since(h.renewed) < d-d/liveShare {
		l.mu.Unlock()
		return true
	}
	report := l.loseWith(h, ErrLeaseEnding)
	l.mu.Unlock()
	if report {
		l.reportLost(lease)
	}
	return false
}
