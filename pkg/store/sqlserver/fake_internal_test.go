package sqlserver

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// These tests run the stores on a fake database/sql driver: they check
// what the Go code decides (which statements run, in which transaction,
// what is tried again, how rows become domain values), never whether the
// T-SQL works, which only a SQL Server can tell (integration/sqlserver).

const (
	markLock  = "sp_getapplock"
	markClaim = "after_cursor"
)

// fakeDB is a DB over a fake driver whose pause between tries returns
// at once.
func fakeDB(t *testing.T, script sqlfake.Script) (*DB, *sqlfake.DB) {
	t.Helper()
	fake := sqlfake.Open(script)
	t.Cleanup(func() { _ = fake.SQL.Close() })
	return &DB{SQL: fake.SQL, statementTimeout: time.Minute, pause: func(context.Context, int) bool { return true }}, fake
}

func layout() schema.Layout { return schematest.DefaultLayout(schema.SQLServer) }

var created = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// claimedRow is one OUTPUT row of outbox_claim.sql.
func claimedRow(id string, key any, headers string) []any {
	var dest, origin any = "", nil
	if key != nil {
		dest = "billing"
	}
	return []any{id, "order.created", key, "order", `{"amount": 1, "note": "a  b"}`, headers,
		int64(2), int64(5), created, int64(7), "token-" + id, dest, origin}
}

// failFirst answers the statements that contain mark with err on the
// first n tries, then with ok; every other statement succeeds empty.
func failFirst(mark string, n int32, err error, ok sqlfake.Result) sqlfake.Script {
	var tries atomic.Int32
	return func(c sqlfake.Call) sqlfake.Result {
		if !strings.Contains(c.SQL, mark) {
			return sqlfake.Result{}
		}
		if tries.Add(1) <= n {
			return sqlfake.Result{Err: err}
		}
		return ok
	}
}

func TestOutboxClaimTakesTheClaimLockInTheClaimTransaction(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst(markClaim, 0, nil, sqlfake.Result{Rows: [][]any{
		claimedRow("a1", nil, `{"X-Tenant":"acme"}`),
		claimedRow("a2", "cust-7", `[1]`),
	}}))
	o, err := NewOutbox(db, layout(), 30*time.Second)
	require.NoError(t, err)

	got, err := o.Claim(t.Context(), 10)
	require.NoError(t, err)
	require.Equal(t, []string{sqlfake.Begin, markLock, markClaim, sqlfake.Commit}, fake.Steps(markLock, markClaim))
	calls := fake.Calls()
	require.Equal(t, []any{"queuebox_outbox_claim_outbox"}, calls[1].Args)
	require.Equal(t, []any{int64(10), "", int64(30000), nil, ""}, normalize(calls[2].Args))

	require.Len(t, got, 2)
	first := got[0]
	require.Equal(t, []any{"a1", "order.created", "", false, "order", `{"amount":1,"note":"a  b"}`, 2, 5, int64(7), "token-a1"},
		[]any{first.ID, first.Topic, first.Key, first.HasKey, first.AggregateType, string(first.Payload),
			first.Attempt, first.MaxAttempts, first.Sequence, first.ClaimToken})
	require.Equal(t, map[string]string{"X-Tenant": "acme"}, first.Headers)
	require.NoError(t, first.HeadersErr)
	require.True(t, got[1].HasKey)
	require.Equal(t, "cust-7", got[1].Key)
	require.ErrorContains(t, got[1].HeadersErr, "an array", "a row whose headers are no object comes back, marked")
}

// normalize turns the ints the store passes into int64, as the driver's
// converter would, so the expectations do not depend on Go's int size.
func normalize(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if n, ok := a.(int); ok {
			a = int64(n)
		}
		out[i] = a
	}
	return out
}

func TestTransientLockErrorsAreTriedAgain(t *testing.T) {
	t.Parallel()
	for name, number := range map[string]int32{
		"deadlock victim":        errDeadlockVictim,
		"lock timeout":           errLockTimeout,
		"claim lock not granted": errClaimLockDenied,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db, fake := fakeDB(t, failFirst(markClaim, 1, mssql.Error{Number: number},
				sqlfake.Result{Rows: [][]any{claimedRow("a1", nil, `{}`)}}))
			o, err := NewOutbox(db, layout(), time.Minute)
			require.NoError(t, err)
			got, err := o.Claim(t.Context(), 1)
			require.NoError(t, err)
			require.Len(t, got, 1)
			// The whole transaction runs again, lock included: the failed
			// one was rolled back.
			require.Equal(t, []string{sqlfake.Begin, markLock, markClaim, sqlfake.Rollback,
				sqlfake.Begin, markLock, markClaim, sqlfake.Commit}, fake.Steps(markLock, markClaim))
		})
	}
}

func TestTransientErrorsGiveUpAfterMaxTries(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("OPENJSON", 100, mssql.Error{Number: errLockTimeout, Message: "Lock request time out period exceeded."}, sqlfake.Result{}))
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	_, err = o.Renew(t.Context(), []queuebox.Lease{{ID: "a1", Token: "t1"}})
	require.ErrorContains(t, err, "renew outbox leases")
	require.True(t, isTransient(err))
	tries := 0
	for _, step := range fake.Steps("OPENJSON") {
		if step == "OPENJSON" {
			tries++
		}
	}
	require.Equal(t, maxTries, tries)
}

func TestOtherErrorsAreNotTriedAgain(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("OPENJSON", 100, errors.New("connection reset"), sqlfake.Result{}))
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	_, err = o.Finish(t.Context(), []queuebox.Outcome{{Lease: queuebox.Lease{ID: "a1", Token: "t1"}, Kind: queuebox.OutcomeSent}})
	require.ErrorContains(t, err, "connection reset")
	require.Equal(t, []string{sqlfake.Begin, "OPENJSON", sqlfake.Rollback}, fake.Steps("OPENJSON"))
}

func TestFinishSendsTheOutcomesAsOneJSONArray(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("OPENJSON", 0, nil, sqlfake.Result{Rows: [][]any{{"a1"}}}))
	o, err := NewOutbox(db, layout(), time.Minute, WithClock(func() time.Time {
		return time.Date(2026, 12, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	}))
	require.NoError(t, err)
	kept, err := o.Finish(t.Context(), []queuebox.Outcome{
		{Lease: queuebox.Lease{ID: "a1", Token: "t1"}, Kind: queuebox.OutcomeRetry, Delay: 1500 * time.Millisecond, Error: "HTTP 503"},
		{Lease: queuebox.Lease{ID: "a2", Token: "t2"}, Kind: queuebox.OutcomeSent},
	})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a1": true}, kept, "an id missing from OUTPUT lost its claim")
	args := fake.Calls()[1].Args
	require.JSONEq(t, `[{"id":"a1","token":"t1","outcome":"retry","delay_ms":1500,"error":"HTTP 503"},
		{"id":"a2","token":"t2","outcome":"sent","error":""}]`, args[0].(string))
	require.Equal(t, time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC), args[1], "the test clock goes in UTC")
}

func TestFinishAgainConfirmsWhatAnEarlierTryWrote(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.Contains(c.SQL, "UPDATE o") {
			return sqlfake.Result{Rows: [][]any{{"a1"}}}
		}
		return sqlfake.Result{Rows: [][]any{{"a2"}}}
	})
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	sent := func(id string) queuebox.Outcome {
		return queuebox.Outcome{Lease: queuebox.Lease{ID: id, Token: "t-" + id}, Kind: queuebox.OutcomeSent}
	}
	kept, err := o.FinishAgain(t.Context(), []queuebox.Outcome{sent("a1"), sent("a2"), sent("a3")})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a1": true, "a2": true}, kept)
	confirm := fake.Calls()[4]
	require.Contains(t, confirm.SQL, "SELECT LOWER")
	require.JSONEq(t, `[{"id":"a2","token":"t-a2","outcome":"sent","error":""},{"id":"a3","token":"t-a3","outcome":"sent","error":""}]`,
		confirm.Args[0].(string), "only the rows the second try did not write are looked up")
}

func TestClaimReadsTheLaneAndPassesItsCursor(t *testing.T) {
	t.Parallel()
	routed := claimedRow("a1", "cust-7", `{}`)
	routed[12] = "00000000-0000-0000-0000-0000000000aa"
	db, fake := fakeDB(t, failFirst(markClaim, 0, nil, sqlfake.Result{Rows: [][]any{routed}}))
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	got, err := o.Claim(t.Context(), 5)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "billing", got[0].Destination)
	require.Equal(t, "00000000-0000-0000-0000-0000000000aa", got[0].OriginID)
	require.Equal(t, "00000000-0000-0000-0000-0000000000aa", got[0].MessageID(), "a delivery carries its origin's id")

	// The next claim starts after the lane the first one took: its key
	// as @p2, its destination as @p5.
	_, err = o.Claim(t.Context(), 5)
	require.NoError(t, err)
	var claims []sqlfake.Call
	for _, c := range fake.Calls() {
		if strings.Contains(c.SQL, markClaim) {
			claims = append(claims, c)
		}
	}
	require.Len(t, claims, 2)
	require.Equal(t, []any{int64(5), "cust-7", int64(60000), nil, "billing"}, normalize(claims[1].Args))
}

func TestAssignSendsRoutedRowsAndDeliveriesAsJSON(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("OPENJSON", 0, nil, sqlfake.Result{Rows: [][]any{{"a1"}, {"a3"}}}))
	o, err := NewOutbox(db, layout(), time.Minute, WithClock(func() time.Time { return created }))
	require.NoError(t, err)
	got, err := o.Assign(t.Context(), []queuebox.Assignment{
		{ID: "a1", Destinations: []string{"ledger", "billing", "audit"}},
		{ID: "a2"}, // neither a destination nor a reason: left out
		{ID: "a3", Token: "t3", Destinations: []string{"ledger"}},
		{ID: "a4", DeadReason: "no route matches topic x"},
	})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"a1": true, "a3": true}, got)
	c := fake.Calls()[1]
	require.JSONEq(t, `[{"id":"a1","dest":"ledger"},{"id":"a3","dest":"ledger","token":"t3"},
		{"id":"a4","dest":"","reason":"no route matches topic x"}]`, c.Args[0].(string),
		"an empty token or reason stays out, so the statement reads NULL")
	require.JSONEq(t, `[{"origin":"a1","dest":"billing"},{"origin":"a1","dest":"audit"}]`, c.Args[1].(string))
	require.Equal(t, created, c.Args[2])
	require.Equal(t, []string{sqlfake.Begin, "OPENJSON", sqlfake.Commit}, fake.Steps("OPENJSON"),
		"the update, the deliveries and the answer run in one transaction")
}

func TestAssignWithNothingToRouteRunsNothing(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("OPENJSON", 0, nil, sqlfake.Result{}))
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	for _, in := range [][]queuebox.Assignment{nil, {{ID: "a1"}}} {
		got, err := o.Assign(t.Context(), in)
		require.NoError(t, err)
		require.Empty(t, got)
	}
	require.Empty(t, fake.Calls())
}

func TestUnroutedReadsIDsAndTopics(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("idx_outbox_unrouted", 0, nil, sqlfake.Result{Rows: [][]any{
		{"a1", "order.created"}, {"a2", "order.paid"}}}))
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	got, err := o.Unrouted(t.Context(), 100)
	require.NoError(t, err)
	require.Equal(t, []queuebox.UnroutedRow{{ID: "a1", Topic: "order.created"}, {ID: "a2", Topic: "order.paid"}}, got)
	require.Equal(t, []any{int64(100)}, normalize(fake.Calls()[0].Args))
}

func TestPostponeSendsBothTopicListsAndTheDestination(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result { return sqlfake.Result{Affected: 3} })
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	n, err := o.Postpone(t.Context(), queuebox.PostponeParams{Destination: "billing",
		Topics: []string{"payment.made", "order.paid"}, Delay: 90 * time.Second})
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	require.Equal(t, []any{`["payment.made","order.paid"]`, int64(90000), nil, "billing", `[]`},
		normalize(fake.Calls()[0].Args), "no unrouted topic is an empty array, not null")

	n, err = o.Postpone(t.Context(), queuebox.PostponeParams{Destination: "billing", Delay: time.Minute})
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, fake.Calls(), 1, "no topic routed to the destination: nothing runs")
}

func TestFinishSendsTheDestinationOfARowRoutedAtItsClaim(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, failFirst("OPENJSON", 0, nil, sqlfake.Result{Rows: [][]any{{"a1"}}}))
	o, err := NewOutbox(db, layout(), time.Minute)
	require.NoError(t, err)
	_, err = o.Finish(t.Context(), []queuebox.Outcome{
		{Lease: queuebox.Lease{ID: "a1", Token: "t1"}, Kind: queuebox.OutcomeSent, Destination: "ledger"}})
	require.NoError(t, err)
	require.JSONEq(t, `[{"id":"a1","token":"t1","outcome":"sent","error":"","dest":"ledger"}]`, fake.Calls()[1].Args[0].(string))
}
