package sqlserver

import (
	"errors"
	"strings"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/wbsql"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// Markers of the workbench statements in the fake driver's log: a piece
// of each statement's text that no other holds.
const (
	markListOutbox = "ORDER BY [sequence] DESC"
	markListInbox  = "ORDER BY [created_at] DESC, [id] DESC"
	markGet        = "One whole"
	markState      = "The state of one row"
	markResend     = "OUTPUT deleted."
	markDiscard    = "SET [discarded_at] = SYSUTCDATETIME()"
	markMove       = "Moves up to @limit rows"
	markJobGet     = "One replay job;"
	markJobStep    = "@taken"
	markStates     = "the discarded dead rows apart"
	markOldest     = "DATEDIFF_BIG"
	markDead       = "The dead rows not discarded"
)

// answer scripts the fake by marker; a statement of no marker gets an
// empty result.
func answer(m map[string]sqlfake.Result) sqlfake.Script {
	return func(c sqlfake.Call) sqlfake.Result {
		for mark, r := range m {
			if strings.Contains(c.SQL, mark) {
				return r
			}
		}
		return sqlfake.Result{}
	}
}

func newWorkbench(t *testing.T, script sqlfake.Script) (*Workbench, *sqlfake.DB) {
	t.Helper()
	db, fake := fakeDB(t, script)
	w, err := NewWorkbench(db, layout())
	require.NoError(t, err)
	return w, fake
}

func outboxListed(id, state string, seq int64) []any {
	return []any{id, state, "order.created", nil, int64(5), int64(5), "boom", created, created, created.Add(time.Minute), seq, nil,
		"ledger", nil}
}

func TestWorkbenchListBindsOnlyTheFiltersSetAndPagesBySequence(t *testing.T) {
	t.Parallel()
	w, fake := newWorkbench(t, answer(map[string]sqlfake.Result{markListOutbox: {Rows: [][]any{
		outboxListed("b", "sent", 9), outboxListed("a", "dead", 4)}}}))
	after := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("X", 3600))
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateDead},
		Topics: []string{"a", "b"}, Error: "Boom", CreatedAfter: &after, Source: "ignored on the outbox"}
	page, err := w.List(t.Context(), f, 2, queuebox.Cursor{Sequence: 12})
	require.NoError(t, err)
	call := fake.Calls()[0]
	require.Equal(t, map[string]any{"topics": `["a","b"]`, "error": "Boom", "created_after": after.UTC(),
		"limit": int64(2), "cursor_sequence": int64(12), "cursor_id": wbsql.NoID}, call.Named)
	require.Contains(t, call.SQL, "[sequence] < @cursor_sequence OR [id] < TRY_CAST(@cursor_id AS UNIQUEIDENTIFIER)",
		"a cursor without an id (an old one) starts after its whole sequence")
	require.NotContains(t, call.SQL, "@source", "a filter not set renders nothing")

	require.Len(t, page.Items, 2)
	sent := page.Items[0]
	require.Equal(t, queuebox.StateSent, sent.State)
	require.Equal(t, created.Add(time.Minute), *sent.SentAt, "a sent row's last change is its sending")
	require.Nil(t, page.Items[1].SentAt)
	require.Nil(t, sent.Key)
	require.Equal(t, "boom", *sent.LastError)
	require.Equal(t, "ledger", sent.Destination)
	require.Nil(t, sent.OriginID)
	require.Equal(t, &queuebox.Cursor{Sequence: 4, ID: "a"}, page.Next, "a full page points past its last row")

	page, err = w.List(t.Context(), queuebox.MessageFilter{Table: queuebox.TableOutbox}, 3, queuebox.Cursor{})
	require.NoError(t, err)
	require.Nil(t, page.Next, "a short page is the last")
	require.NotContains(t, fake.Calls()[1].SQL, "@cursor_sequence")

	_, err = w.List(t.Context(), queuebox.MessageFilter{Table: queuebox.TableOutbox, Destination: "billing",
		UnroutedTopics: []string{"pay"}, Message: "m"}, 3, queuebox.Cursor{Sequence: 4, ID: "a"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"destination": "billing", "unrouted_topics": `["pay"]`, "message": "m",
		"limit": int64(3), "cursor_sequence": int64(4), "cursor_id": "a"}, fake.Calls()[2].Named)

	_, err = w.List(t.Context(), queuebox.MessageFilter{Table: queuebox.TableOutbox, IDs: []string{}}, 3, queuebox.Cursor{})
	require.NoError(t, err)
	require.Len(t, fake.Calls(), 3, "an empty id list selects nothing without a statement")
}

func TestWorkbenchInboxCursorIsTimeAndID(t *testing.T) {
	t.Parallel()
	row := []any{"c", "dead", "stripe", nil, "agg-1", "evt-1", "push", int64(3), nil, created, created, nil, created}
	w, fake := newWorkbench(t, answer(map[string]sqlfake.Result{markListInbox: {Rows: [][]any{row}}}))
	at := time.Date(2026, 12, 1, 11, 0, 0, 0, time.FixedZone("X", 7200))
	page, err := w.List(t.Context(), queuebox.MessageFilter{Table: queuebox.TableInbox, Source: "stripe", Key: "agg-1"}, 1,
		queuebox.Cursor{CreatedAt: at, ID: "d"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"source": "stripe", "key": "agg-1", "limit": int64(1),
		"cursor_created_at": at.UTC(), "cursor_id": "d"}, fake.Calls()[0].Named)
	require.Equal(t, &queuebox.Cursor{CreatedAt: created, ID: "c"}, page.Next)
	m := page.Items[0]
	require.Equal(t, "stripe", m.Source)
	require.Equal(t, "agg-1", *m.AggregateID)
	require.Equal(t, created, *m.DiscardedAt)
}

func TestWorkbenchGetReadsTheWholeRowOrNotFound(t *testing.T) {
	t.Parallel()
	var rows [][]any
	w, _ := newWorkbench(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.Contains(c.SQL, markGet) {
			return sqlfake.Result{Rows: rows}
		}
		return sqlfake.Result{}
	})
	_, err := w.Get(t.Context(), queuebox.TableOutbox, "nope")
	require.ErrorIs(t, err, queuebox.ErrNotFound)
	rows = [][]any{append(outboxListed("a", "dead", 1), `{"v":1}`, `{"h":"x"}`, "order", nil, nil, nil)}
	m, err := w.Get(t.Context(), queuebox.TableOutbox, "a")
	require.NoError(t, err)
	require.JSONEq(t, `{"v":1}`, string(m.Payload))
	require.JSONEq(t, `{"h":"x"}`, string(m.Headers))
	require.Equal(t, "order", *m.AggregateType)
	require.Nil(t, m.ClaimToken)
}

// A resend or a discard that changed nothing reads the row's state to
// say why: gone (ErrNotFound) or in a state the write refuses.
func TestWorkbenchWritesTellMissingFromWrongState(t *testing.T) {
	t.Parallel()
	var state [][]any
	w, fake := newWorkbench(t, func(c sqlfake.Call) sqlfake.Result {
		switch {
		case strings.Contains(c.SQL, markState):
			return sqlfake.Result{Rows: state}
		case strings.Contains(c.SQL, markResend) && c.Named["id"] == "moves":
			return sqlfake.Result{Rows: [][]any{{`{"v":1}`, `{"v":2}`}}}
		}
		return sqlfake.Result{}
	})
	ctx := t.Context()
	_, err := w.Resend(ctx, queuebox.TableOutbox, "gone", queuebox.ResendEdit{})
	require.ErrorIs(t, err, queuebox.ErrNotFound)
	require.ErrorIs(t, w.Discard(ctx, queuebox.TableInbox, "gone"), queuebox.ErrNotFound)

	state = [][]any{{"processing"}}
	_, err = w.Resend(ctx, queuebox.TableOutbox, "held", queuebox.ResendEdit{})
	require.ErrorIs(t, err, queuebox.ErrWrongState)
	require.ErrorContains(t, err, "processing")
	require.ErrorIs(t, w.Discard(ctx, queuebox.TableOutbox, "held"), queuebox.ErrWrongState)

	res, err := w.Resend(ctx, queuebox.TableOutbox, "moves", queuebox.ResendEdit{Payload: []byte(`{"v":2}`)})
	require.NoError(t, err)
	require.Equal(t, queuebox.ResendResult{OldPayload: []byte(`{"v":1}`), NewPayload: []byte(`{"v":2}`)}, res)
	calls := fake.Calls()
	require.Equal(t, map[string]any{"id": "moves", "payload": `{"v":2}`, "headers": nil}, calls[len(calls)-1].Named,
		"no headers edit binds NULL: the stored headers stay")

	_, err = w.Resend(ctx, queuebox.TableInbox, "moves", queuebox.ResendEdit{Payload: []byte(`{}`)})
	require.NoError(t, err)
	calls = fake.Calls()
	require.Equal(t, map[string]any{"id": "moves"}, calls[len(calls)-1].Named, "an inbox row takes no edit")
}

func TestWorkbenchMoveSelectsFinalStatesOnly(t *testing.T) {
	t.Parallel()
	w, fake := newWorkbench(t, answer(map[string]sqlfake.Result{markMove: {Affected: 3}}))
	n, err := w.Move(t.Context(), queuebox.MessageFilter{Table: queuebox.TableOutbox,
		States: []queuebox.State{queuebox.StatePending, queuebox.StateDead}}, 500)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	call := fake.Calls()[0]
	require.Contains(t, call.SQL, "[state] IN ('dead') AND")
	require.Equal(t, map[string]any{"limit": int64(500)}, call.Named)

	n, err = w.Move(t.Context(), queuebox.MessageFilter{Table: queuebox.TableOutbox,
		States: []queuebox.State{queuebox.StatePending}}, 0)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, fake.Calls(), 1, "no final state asked for: no statement")
}

// Adding the missing deliveries of a destination has no T-SQL statement
// yet: a backfill selection is refused with errors.ErrUnsupported before
// any statement runs, never read as a plain destination filter.
func TestWorkbenchBackfillIsUnsupported(t *testing.T) {
	t.Parallel()
	w, fake := newWorkbench(t, answer(map[string]sqlfake.Result{markMove: {Affected: 3}}))
	f := queuebox.MessageFilter{Table: queuebox.TableOutbox, Destination: "billing",
		UnroutedTopics: []string{"payment.paid"}, Backfill: true}
	_, err := w.Count(t.Context(), f, 0)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = w.Move(t.Context(), f, 500)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.Empty(t, fake.Calls())
}

func TestWorkbenchOverviewSumsPerTable(t *testing.T) {
	t.Parallel()
	w, _ := newWorkbench(t, func(c sqlfake.Call) sqlfake.Result {
		inbox := strings.Contains(c.SQL, "[inbox]")
		switch {
		case strings.Contains(c.SQL, markStates) && inbox:
			return sqlfake.Result{Rows: [][]any{{"dead", false, int64(2)}, {"dead", true, int64(1)}}}
		case strings.Contains(c.SQL, markStates):
			return sqlfake.Result{Rows: [][]any{{"pending", false, int64(4)}, {"dead", true, int64(3)}}}
		case strings.Contains(c.SQL, markOldest) && !inbox:
			return sqlfake.Result{Rows: [][]any{{"a", int64(1500), int64(2), int64(1)}, {nil, int64(900), int64(80), int64(70)}}}
		case strings.Contains(c.SQL, markDead) && inbox:
			return sqlfake.Result{Rows: [][]any{{"stripe", int64(2), int64(1)}}}
		case strings.Contains(c.SQL, markDead):
			// The top names, then the rest summed in one row named NULL.
			return sqlfake.Result{Rows: [][]any{{"b", int64(9), int64(1)}, {nil, int64(75), int64(70)}}}
		}
		return sqlfake.Result{}
	})
	o, err := w.Overview(t.Context())
	require.NoError(t, err)
	require.Equal(t, map[queuebox.State]int64{queuebox.StatePending: 4}, o.Outbox)
	require.EqualValues(t, 3, o.OutboxDiscarded)
	require.Equal(t, map[queuebox.State]int64{queuebox.StateDead: 2}, o.Inbox)
	require.EqualValues(t, 1, o.InboxDiscarded)
	require.Equal(t, map[string]time.Duration{"a": 1500 * time.Millisecond}, o.OldestPendingByTopic)
	require.Equal(t, queuebox.OverviewOther{Names: 70, Rows: 80, OldestPending: 900 * time.Millisecond}, o.OldestPendingByTopicOther)
	require.Equal(t, map[string]int64{"stripe": 2}, o.DeadBySource)
	require.Zero(t, o.DeadBySourceOther)
	require.Equal(t, map[string]int64{"b": 9}, o.DeadByTopic)
	require.Equal(t, queuebox.OverviewOther{Names: 70, Rows: 75}, o.DeadByTopicOther)
}

// jobRow is one row of wb_job_columns.
func jobRow(moved int64, done bool) []any {
	var finished any
	if done {
		finished = created
	}
	return []any{"job-1", "outbox", `{"Table":"outbox","States":["dead"],"Topics":["a"]}`, int64(1000), moved, done, nil,
		created, finished}
}

// A step runs in a transaction of its own with the job's filter bound;
// no row back is a lost lease; a deadlock is tried again, the whole
// transaction.
func TestWorkbenchJobStepRunsUnderTheLeaseInOneTransaction(t *testing.T) {
	t.Parallel()
	var steps int
	var step sqlfake.Result
	w, fake := newWorkbench(t, func(c sqlfake.Call) sqlfake.Result {
		switch {
		case strings.Contains(c.SQL, markJobGet):
			return sqlfake.Result{Rows: [][]any{jobRow(0, false)}}
		case strings.Contains(c.SQL, markJobStep):
			steps++
			if steps == 1 {
				return sqlfake.Result{Err: mssql.Error{Number: 1205, Message: "deadlock victim"}}
			}
			return step
		}
		return sqlfake.Result{}
	})
	l := queuebox.JobLease{JobID: "job-1", Token: "tok"}
	step = sqlfake.Result{Rows: [][]any{jobRow(500, false)}}
	job, err := w.JobStep(t.Context(), l, 500, time.Minute)
	require.NoError(t, err)
	require.EqualValues(t, 500, job.Moved)
	require.Equal(t, []queuebox.State{queuebox.StateDead}, job.Filter.States)
	require.Equal(t, []string{markJobGet, sqlfake.Begin, markJobStep, sqlfake.Rollback, sqlfake.Begin, markJobStep, sqlfake.Commit},
		fake.Steps(markJobGet, markJobStep))
	last := fake.Calls()[5]
	require.Equal(t, map[string]any{"topics": `["a"]`, "job": "job-1", "token": "tok", "batch": int64(500),
		"lease_ms": int64(60000)}, last.Named)

	step = sqlfake.Result{}
	_, err = w.JobStep(t.Context(), l, 500, time.Minute)
	require.ErrorIs(t, err, queuebox.ErrLeaseLost, "no job row back: the lease is not the caller's")
	require.Equal(t, sqlfake.Rollback, fake.Steps()[len(fake.Calls())-1])
}

func TestWorkbenchJobReadsAndLeases(t *testing.T) {
	t.Parallel()
	var jobs, claims [][]any
	var failed int64
	w, fake := newWorkbench(t, func(c sqlfake.Call) sqlfake.Result {
		switch {
		case strings.Contains(c.SQL, "NEWID()"):
			return sqlfake.Result{Rows: claims}
		case strings.Contains(c.SQL, "error = @error"):
			return sqlfake.Result{Affected: failed}
		case strings.Contains(c.SQL, "[queuebox_replay_jobs]"):
			return sqlfake.Result{Rows: jobs}
		}
		return sqlfake.Result{}
	})
	ctx := t.Context()
	_, err := w.JobGet(ctx, "job-1")
	require.ErrorIs(t, err, queuebox.ErrNotFound)
	_, ok, err := w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "no job waits")
	require.ErrorIs(t, w.JobFail(ctx, queuebox.JobLease{JobID: "job-1", Token: "tok"}, "x"), queuebox.ErrLeaseLost)

	jobs = [][]any{jobRow(1000, true)}
	claims = [][]any{{"job-1", "tok"}}
	failed = 1
	job, err := w.JobGet(ctx, "job-1")
	require.NoError(t, err)
	require.True(t, job.Done)
	require.Equal(t, created, *job.FinishedAt)
	l, ok, err := w.JobClaim(ctx, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, queuebox.JobLease{JobID: "job-1", Token: "tok"}, l)
	require.NoError(t, w.JobFail(ctx, l, "x"))
	all, err := w.JobList(ctx, 5)
	require.NoError(t, err)
	require.Len(t, all, 1)
	_, err = w.JobCreate(ctx, queuebox.MessageFilter{Table: queuebox.TableInbox,
		States: []queuebox.State{queuebox.StatePending, queuebox.StateDead}}, 7)
	require.NoError(t, err)
	calls := fake.Calls()
	create := calls[len(calls)-1]
	require.Contains(t, create.SQL, "OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.id))")
	require.Equal(t, "inbox", create.Named["table_name"])
	require.JSONEq(t, `{"Table":"inbox","States":["dead"],"Topics":null,"Source":"","Key":"","Error":"","IDs":null,
		"CreatedAfter":null,"CreatedBefore":null,"WithDiscarded":false}`, create.Named["filter"].(string), "a job keeps final states only")
	require.Equal(t, int64(7), create.Named["matched"])

	jobs = [][]any{{"job-2", "outbox", "not json", int64(1), int64(0), false, nil, created, nil}}
	_, err = w.JobGet(ctx, "job-2")
	require.ErrorContains(t, err, "does not decode")
	require.False(t, errors.Is(err, queuebox.ErrNotFound))
}
