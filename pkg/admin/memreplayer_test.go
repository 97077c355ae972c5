package admin_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// memReplayer is an outbox in memory behind queuebox.Replayer, so that
// the route's own behaviour (filters it builds, batches, bounds, answers)
// is tested without a database. It selects rows as the contract says;
// storetest holds every dialect to the same contract. It records the
// limit of every Move and Count. It is safe for concurrent use.
type memReplayer struct {
	mu          sync.Mutex
	rows        []memRow
	jobs        []queuebox.ReplayJob
	moveLimits  []int
	countLimits []int
	// noLanes makes a backfill fail as on an outbox without the lane
	// columns.
	noLanes bool
}

type memRow struct {
	id, topic string
	dest      string // the destination column; "" not routed yet
	origin    string // the origin_id column: a delivery added for that row
	state     queuebox.State
	created   time.Time
	moved     bool // a replay moved it to pending
}

func (m *memReplayer) add(rows ...memRow) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, rows...)
}

// selects says whether f selects row r; rows is the whole table, which a
// backfill looks through for the message's deliveries.
func selects(f queuebox.MessageFilter, r memRow, rows []memRow) bool {
	if f.Backfill && f.Destination != "" {
		if r.origin != "" || r.dest == "" || r.dest == f.Destination || !slices.Contains(f.UnroutedTopics, r.topic) {
			return false
		}
		for _, d := range rows {
			if d.origin == r.id && d.dest == f.Destination {
				return false
			}
		}
		f.Destination = ""
	}
	return (r.state == queuebox.StateSent || r.state == queuebox.StateDead) &&
		(f.States == nil || slices.Contains(f.States, r.state)) &&
		(f.IDs == nil || slices.Contains(f.IDs, r.id)) &&
		(f.Topics == nil || slices.Contains(f.Topics, r.topic)) &&
		(f.Destination == "" || r.dest == f.Destination || (r.dest == "" && slices.Contains(f.UnroutedTopics, r.topic))) &&
		(f.CreatedAfter == nil || r.created.After(*f.CreatedAfter)) &&
		(f.CreatedBefore == nil || r.created.Before(*f.CreatedBefore))
}

// Topics implements queuebox.WorkbenchStore.Topics.
func (m *memReplayer) Topics(_ context.Context, f queuebox.MessageFilter) ([]string, error) {
	f.Topics = nil // the contract: Topics ignores the topic list
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, r := range m.rows {
		if selects(f, r, m.rows) && !slices.Contains(out, r.topic) {
			out = append(out, r.topic)
		}
	}
	return out, nil
}

// Move implements queuebox.Replayer.
func (m *memReplayer) Move(_ context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.moveLimits = append(m.moveLimits, limit)
	if f.Backfill && m.noLanes {
		return 0, queuebox.ErrNoLanes
	}
	rows := m.selected(f, limit)
	if f.Backfill && f.Destination != "" {
		for _, i := range rows {
			r := m.rows[i]
			m.rows = append(m.rows, memRow{id: r.id + "-" + f.Destination, topic: r.topic, dest: f.Destination,
				origin: r.id, state: queuebox.StatePending, created: r.created})
		}
		return int64(len(rows)), nil
	}
	for _, i := range rows {
		m.rows[i].state, m.rows[i].moved = queuebox.StatePending, true
		if f.Destination != "" {
			m.rows[i].dest = f.Destination
		}
	}
	return int64(len(rows)), nil
}

// Count implements queuebox.Replayer.
func (m *memReplayer) Count(_ context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.countLimits = append(m.countLimits, limit)
	if f.Backfill && m.noLanes {
		return 0, queuebox.ErrNoLanes
	}
	return int64(len(m.selected(f, limit))), nil
}

// selected returns the indexes of the first limit rows (0: every row) that
// f selects. The caller holds mu.
func (m *memReplayer) selected(f queuebox.MessageFilter, limit int) []int {
	var out []int
	for i, r := range m.rows {
		if limit > 0 && len(out) == limit {
			break
		}
		if selects(f, r, m.rows) {
			out = append(out, i)
		}
	}
	return out
}

// moved returns the ids of the rows a replay moved, in insertion order.
func (m *memReplayer) moved() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, r := range m.rows {
		if r.moved {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// JobCreate records the job; the runner is tested against the stores.
func (m *memReplayer) JobCreate(_ context.Context, f queuebox.MessageFilter, matched int64) (queuebox.ReplayJob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	job := queuebox.ReplayJob{ID: fmt.Sprintf("00000000-0000-0000-0000-%012d", len(m.jobs)+1), Filter: f, Matched: matched}
	m.jobs = append(m.jobs, job)
	return job, nil
}
