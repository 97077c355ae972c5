package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// errNoWorkbench answers every workbench call that SQL Server cannot serve
// yet: the workbench's own T-SQL statements have not landed.
var errNoWorkbench = errors.New("this workbench call is not available on SQL Server yet")

// Workbench is the SQL Server workbench store so far: the replay of final
// outbox rows by ids, topics and creation time, on the replay statements
// that POST /admin/replay always used, so the route keeps working on SQL
// Server. Every other call returns an error that says it is not
// available. It is safe for concurrent use.
type Workbench struct {
	replay *Replay
}

var _ queuebox.WorkbenchStore = (*Workbench)(nil)

// NewWorkbench returns the workbench store of layout l.
func NewWorkbench(db *DB, l schema.Layout) (*Workbench, error) {
	r, err := NewReplay(db, l)
	if err != nil {
		return nil, err
	}
	return &Workbench{replay: r}, nil
}

// replayFilter maps a workbench filter onto the replay's, when the replay
// statements can express it: outbox rows in every final state, no
// filter of the workbench's own.
func replayFilter(f queuebox.MessageFilter) (queuebox.ReplayFilter, error) {
	final := queuebox.TableOutbox.FinalStates()
	if f.Table != queuebox.TableOutbox || f.Source != "" || f.Key != "" || f.Error != "" || f.WithDiscarded ||
		(f.States != nil && !(len(f.States) == len(final) && slices.Contains(f.States, final[0]) && slices.Contains(f.States, final[1]))) {
		return queuebox.ReplayFilter{}, fmt.Errorf("%w: on SQL Server a replay selects sent and dead outbox rows by ids, topics and creation time only", errNoWorkbench)
	}
	return queuebox.ReplayFilter{IDs: f.IDs, Topics: f.Topics, CreatedAfter: f.CreatedAfter, CreatedBefore: f.CreatedBefore}, nil
}

// Topics implements queuebox.WorkbenchStore for the replay's filters.
func (w *Workbench) Topics(ctx context.Context, f queuebox.MessageFilter) ([]string, error) {
	f.Topics = nil
	rf, err := replayFilter(f)
	if err != nil {
		return nil, err
	}
	return w.replay.Topics(ctx, rf)
}

// Count implements queuebox.WorkbenchStore for the replay's filters.
func (w *Workbench) Count(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	rf, err := replayFilter(f)
	if err != nil {
		return 0, err
	}
	return w.replay.Count(ctx, rf, limit)
}

// Move implements queuebox.WorkbenchStore for the replay's filters.
func (w *Workbench) Move(ctx context.Context, f queuebox.MessageFilter, limit int) (int64, error) {
	rf, err := replayFilter(f)
	if err != nil {
		return 0, err
	}
	return w.replay.Move(ctx, rf, limit)
}

// List is not available on SQL Server yet.
func (w *Workbench) List(context.Context, queuebox.MessageFilter, int, queuebox.Cursor) (queuebox.MessagePage, error) {
	return queuebox.MessagePage{}, errNoWorkbench
}

// Get is not available on SQL Server yet.
func (w *Workbench) Get(context.Context, queuebox.Table, string) (queuebox.Message, error) {
	return queuebox.Message{}, errNoWorkbench
}

// Resend is not available on SQL Server yet.
func (w *Workbench) Resend(context.Context, queuebox.Table, string, queuebox.ResendEdit) (queuebox.ResendResult, error) {
	return queuebox.ResendResult{}, errNoWorkbench
}

// Discard is not available on SQL Server yet.
func (w *Workbench) Discard(context.Context, queuebox.Table, string) error { return errNoWorkbench }

// Overview is not available on SQL Server yet.
func (w *Workbench) Overview(context.Context) (queuebox.Overview, error) {
	return queuebox.Overview{}, errNoWorkbench
}

// JobCreate is not available on SQL Server yet: a replay of more than
// one batch fails there.
func (w *Workbench) JobCreate(context.Context, queuebox.MessageFilter, int64) (queuebox.ReplayJob, error) {
	return queuebox.ReplayJob{}, errNoWorkbench
}

// JobClaim finds no job on SQL Server, where none can be created, so the
// job runner of every process idles there.
func (w *Workbench) JobClaim(context.Context, time.Duration) (queuebox.JobLease, bool, error) {
	return queuebox.JobLease{}, false, nil
}

// JobStep is not available on SQL Server yet.
func (w *Workbench) JobStep(context.Context, queuebox.JobLease, int, time.Duration) (queuebox.ReplayJob, error) {
	return queuebox.ReplayJob{}, errNoWorkbench
}

// JobFail is not available on SQL Server yet.
func (w *Workbench) JobFail(context.Context, queuebox.JobLease, string) error { return errNoWorkbench }

// JobGet is not available on SQL Server yet.
func (w *Workbench) JobGet(context.Context, string) (queuebox.ReplayJob, error) {
	return queuebox.ReplayJob{}, errNoWorkbench
}

// JobList is not available on SQL Server yet.
func (w *Workbench) JobList(context.Context, int) ([]queuebox.ReplayJob, error) {
	return nil, errNoWorkbench
}
