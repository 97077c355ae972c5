package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// The claim protocol of both tables, as the lease cases that the outbox
// poller and the relay share drive it: claim, renewal, the reclaim step
// and the fenced writes that end a claim, over rows of either table.

// claimedRow is a row that a claim of either table took.
type claimedRow struct {
	queuebox.Lease
	// unit is the row's unit of order: its outbox key or its inbox
	// aggregate; empty for none.
	unit string
}

// leaseRow is a row of either table as the lease cases inspect it.
type leaseRow struct {
	State          queuebox.State
	ClaimToken     string // empty when null
	LeaseExpiresAt *time.Time
	LastError      *string
	Attempt        int
}

// ending is one of a table's fenced writes that end a claim.
type ending struct {
	name string
	// state is the state it leaves a row in whose fence held.
	state queuebox.State
	// forwards says it also inserts one outbox row for each such row.
	forwards bool
	write    func(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error)
}

// claimer is one store of a table as the lease cases drive it.
type claimer struct {
	claim   func(ctx context.Context, limit int) ([]claimedRow, error)
	renew   func(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error)
	reclaim func(ctx context.Context) (int64, error)
	// endings are every write that ends a claim; the first is the one of
	// a row that went well.
	endings []ending
}

// on builds a store of the table on a store set of its own whose clock
// is clock, as another replica would.
func (s side) on(t *testing.T, db Database, clock *Clock) claimer {
	t.Helper()
	return s.claimer(t, db.Stores(t, clock.Now))
}

// claimAll claims with limit and requires n rows.
func (c claimer) claimAll(t *testing.T, limit, n int) []claimedRow {
	t.Helper()
	got, err := c.claim(context.Background(), limit)
	require.NoError(t, err)
	require.Len(t, got, n)
	return got
}

func leasesOfRows(rows []claimedRow) []queuebox.Lease {
	out := make([]queuebox.Lease, len(rows))
	for i, r := range rows {
		out[i] = r.Lease
	}
	return out
}

func outboxClaimer(t *testing.T, stores queuebox.Stores) claimer {
	t.Helper()
	o, err := stores.Outbox(lease)
	require.NoError(t, err)
	finishing := func(finish func(context.Context, []queuebox.Outcome) (map[string]bool, error), outcome queuebox.Outcome) func(context.Context, []queuebox.Lease) (map[string]bool, error) {
		return func(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
			outcomes := make([]queuebox.Outcome, len(leases))
			for i, l := range leases {
				outcomes[i] = outcome
				outcomes[i].Lease = l
			}
			return finish(ctx, outcomes)
		}
	}
	return claimer{
		claim: func(ctx context.Context, limit int) ([]claimedRow, error) {
			got, err := o.Claim(ctx, limit)
			rows := make([]claimedRow, len(got))
			for i, m := range got {
				rows[i] = claimedRow{Lease: m.Lease(), unit: m.Key}
			}
			return rows, err
		},
		renew:   o.Renew,
		reclaim: o.Reclaim,
		endings: []ending{
			{name: "sent", state: queuebox.StateSent, write: finishing(o.Finish, queuebox.Sent())},
			{name: "dead", state: queuebox.StateDead, write: finishing(o.Finish, queuebox.Dead("poison"))},
			{name: "retry", state: queuebox.StatePending, write: finishing(o.Finish, queuebox.Retry(time.Hour, "HTTP 503"))},
			{name: "sent again", state: queuebox.StateSent, write: finishing(o.FinishAgain, queuebox.Sent())},
		},
	}
}

func relayClaimer(t *testing.T, stores queuebox.Stores) claimer {
	t.Helper()
	r, err := stores.Relay(queuebox.RelayParams{Lease: lease, Sources: relaySources})
	require.NoError(t, err)
	return claimer{
		claim: func(ctx context.Context, limit int) ([]claimedRow, error) {
			got, err := r.Claim(ctx, limit)
			rows := make([]claimedRow, len(got))
			for i, row := range got {
				rows[i] = claimedRow{Lease: row.Lease()}
				if row.AggregateID != nil {
					rows[i].unit = *row.AggregateID
				}
			}
			return rows, err
		},
		renew:   r.Renew,
		reclaim: r.Reclaim,
		endings: []ending{
			{name: "forward", state: queuebox.StateProcessed, forwards: true,
				write: func(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
					return r.Forward(ctx, forwards(leases...))
				}},
			{name: "dead", state: queuebox.StateDead,
				write: func(ctx context.Context, leases []queuebox.Lease) (map[string]bool, error) {
					marks := make([]queuebox.DeadMark, len(leases))
					for i, l := range leases {
						marks[i] = queuebox.DeadMark{Lease: l, Reason: "no topic"}
					}
					return r.Dead(ctx, marks)
				}},
		},
	}
}

// seedOutboxUnits inserts perUnit rows of each key, each key in one
// transaction, and returns their ids in sequence order.
func seedOutboxUnits(t *testing.T, db Database, units []string, perUnit int) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for _, u := range units {
		want[u] = db.InsertOutbox(t, keyRows(key(u), perUnit)...)
	}
	return want
}

// seedInboxUnits receives perUnit rows of each aggregate, one at a time
// and the aggregates interleaved, each aggregate in one of the relay's
// sources, and returns their ids in receipt order.
func seedInboxUnits(t *testing.T, db Database, units []string, perUnit int) map[string][]string {
	t.Helper()
	in := inboxStore(t, db)
	want := map[string][]string{}
	for n := range perUnit {
		for i, u := range units {
			id := receive(t, in, relaySources[i%len(relaySources)], fmt.Sprintf("%s-%d", u, n), key(u))
			want[u] = append(want[u], id)
		}
	}
	return want
}

// seedInboxFree receives n push rows without an aggregate, across the
// relay's sources.
func seedInboxFree(t *testing.T, db Database, n int) []string {
	t.Helper()
	in := inboxStore(t, db)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = receive(t, in, relaySources[i%len(relaySources)], nextKey(), nil)
	}
	return ids
}

// sortedLeases orders leases by id as the database does.
func sortedLeases(db Database, leases []queuebox.Lease) []queuebox.Lease {
	out := slices.Clone(leases)
	slices.SortFunc(out, func(a, b queuebox.Lease) int { return db.CompareIDs(a.ID, b.ID) })
	return out
}

// behindAHeldRow runs first and then second while another transaction
// holds the row id of table, each started once the one before waits on
// that row, then lets the row go and returns both results. Two statements
// that lock the same rows in different orders deadlock here.
func behindAHeldRow(t *testing.T, db Database, table Table, id string, first, second func() error) (error, error) {
	t.Helper()
	held := db.Hold(t, table, id)
	firstErr, secondErr := make(chan error, 1), make(chan error, 1)
	go func() { firstErr <- first() }()
	held.WaitBlocked(t, 1)
	go func() { secondErr <- second() }()
	held.WaitBlocked(t, 2)
	held.Release(t)
	return <-firstErr, <-secondErr
}
