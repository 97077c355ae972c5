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
