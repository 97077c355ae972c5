package sqlserver

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

func received() queuebox.ReceivedRow {
	return queuebox.ReceivedRow{Source: "stripe", IdempotencyKey: "evt_1", Payload: []byte(`{"a":1}`)}
}

func TestInboxInsertDecidesInsertedOrDuplicate(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		answer   sqlfake.Result
		id       string
		inserted bool
	}{
		"stored":                      {sqlfake.Result{Rows: [][]any{{"b1"}}}, "b1", true},
		"guard found the key":         {sqlfake.Result{}, "", false},
		"unique key refused the race": {sqlfake.Result{Err: mssql.Error{Number: errUniqueKey}}, "", false},
		"unique index refused it":     {sqlfake.Result{Err: mssql.Error{Number: errUniqueIndex}}, "", false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db, fake := fakeDB(t, func(sqlfake.Call) sqlfake.Result { return tc.answer })
			in, err := NewInbox(db, layout())
			require.NoError(t, err)
			id, inserted, err := in.Insert(t.Context(), received())
			require.NoError(t, err)
			require.Equal(t, []any{tc.id, tc.inserted}, []any{id, inserted})
			args := fake.Calls()[0].Args
			require.Len(t, args, 11)
			require.Equal(t, []any{nil, "stripe", "evt_1"}, args[:3], "a nil id lets NEWID() choose")
			require.Equal(t, []any{`{"a":1}`, `{}`, nil, "push", "pending"}, args[5:10])
		})
	}
}

func TestInboxInsertOfAnOwnIDThatExistsIsStored(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.Contains(c.SQL, "INSERT") {
			return sqlfake.Result{Err: mssql.Error{Number: errUniqueKey}}
		}
		return sqlfake.Result{Rows: [][]any{{"0b0b0b0b-0000-4000-8000-000000000001"}}}
	})
	in, err := NewInbox(db, layout())
	require.NoError(t, err)
	row := received()
	row.ID = "0b0b0b0b-0000-4000-8000-000000000001"
	id, inserted, err := in.Insert(t.Context(), row)
	require.NoError(t, err)
	require.True(t, inserted, "the key holds this message's own id: a try whose answer was lost stored it")
	require.Equal(t, row.ID, id)
	require.Equal(t, []any{"stripe", "evt_1"}, fake.Calls()[1].Args)
}

func TestInboxInsertRefusedValueIsNotTriedAgain(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(sqlfake.Call) sqlfake.Result {
		return sqlfake.Result{Err: mssql.Error{Number: 8152, Message: "String or binary data would be truncated."}}
	})
	in, err := NewInbox(db, layout())
	require.NoError(t, err)
	_, _, err = in.Insert(t.Context(), received())
	require.ErrorIs(t, err, queuebox.ErrRefusedValue)
	require.ErrorContains(t, err, "would be truncated")
	require.Len(t, fake.Calls(), 1)
}

func TestRelayClaimLocksTheInboxAndPassesItsSources(t *testing.T) {
	t.Parallel()
	agg := "order-1"
	db, fake := fakeDB(t, failFirst(markClaim, 0, nil, sqlfake.Result{Rows: [][]any{
		{"c1", "stripe", "evt_1", agg, nil, `{"h":"v"}`, "corr-1", created, "tok-1"},
		{"c2", "github", "evt_2", nil, "push", `{}`, nil, created, "tok-2"},
	}}))
	r, err := NewRelay(db, layout(), queuebox.RelayParams{Lease: time.Minute, Sources: []string{"stripe", "github"}, MaxAttempts: 3})
	require.NoError(t, err)
	got, err := r.Claim(t.Context(), 5)
	require.NoError(t, err)
	require.Equal(t, []string{sqlfake.Begin, markLock, markClaim, sqlfake.Commit}, fake.Steps(markLock, markClaim))
	calls := fake.Calls()
	require.Equal(t, []any{"queuebox_inbox_claim_inbox"}, calls[1].Args)
	require.Equal(t, []any{int64(5), int64(60000), `["stripe","github"]`, nil, ""}, normalize(calls[2].Args))
	require.Len(t, got, 2)
	require.Equal(t, agg, *got[0].AggregateID)
	require.Nil(t, got[0].EventType)
	require.Equal(t, "corr-1", *got[0].CorrelationID)
	require.Nil(t, got[1].AggregateID)
	require.Equal(t, queuebox.Lease{ID: "c2", Token: "tok-2"}, got[1].Lease())

	// The next claim starts after the aggregate this one took, unkeyed first.
	_, err = r.Claim(t.Context(), 5)
	require.NoError(t, err)
	require.Equal(t, agg, fake.Calls()[6].Args[4])
}

func TestRelayForwardSendsTopicsAndHeadersAsJSON(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(sqlfake.Call) sqlfake.Result { return sqlfake.Result{Rows: [][]any{{"c1"}}} })
	r, err := NewRelay(db, layout(), queuebox.RelayParams{Lease: time.Minute, Sources: []string{"stripe"}})
	require.NoError(t, err)
	kept, err := r.Forward(t.Context(), queuebox.ForwardParams{MaxAttempts: 7, Rows: []queuebox.Forward{
		{Lease: queuebox.Lease{ID: "c1", Token: "t1"}, Topic: "stripe.paid", Headers: []byte(`{"X-A":"1"}`)},
	}})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"c1": true}, kept)
	args := normalize(fake.Calls()[1].Args)
	require.JSONEq(t, `[{"id":"c1","token":"t1","topic":"stripe.paid","headers":{"X-A":"1"}}]`, args[0].(string))
	require.Equal(t, []any{int64(7), nil}, args[1:])
}

func TestRelayReclaimAndGauges(t *testing.T) {
	t.Parallel()
	db, fake := fakeDB(t, func(c sqlfake.Call) sqlfake.Result {
		if strings.Contains(c.SQL, "DATEDIFF_BIG") {
			return sqlfake.Result{Rows: [][]any{{2.5}}}
		}
		return sqlfake.Result{Affected: 3}
	})
	r, err := NewRelay(db, layout(), queuebox.RelayParams{Lease: time.Minute, MaxAttempts: 4})
	require.NoError(t, err)
	n, err := r.Reclaim(t.Context())
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	require.Equal(t, []any{nil, int64(4)}, normalize(fake.Calls()[0].Args))
	age, err := r.OldestPendingAge(t.Context())
	require.NoError(t, err)
	require.Equal(t, 2500*time.Millisecond, age)
}

// TestInboxInsertBatchTellsEachRow: the batch statement gets the rows as
// one JSON array in their order, a row it does not report is looked up
// by its own id, and only a row found there counts as stored.
func TestInboxInsertBatchTellsEachRow(t *testing.T) {
	t.Parallel()
	const a, b, c = "0b0b0b0b-0000-7000-8000-00000000000a", "0b0b0b0b-0000-7000-8000-00000000000b", "0b0b0b0b-0000-7000-8000-00000000000c"
	db, fake := fakeDB(t, func(call sqlfake.Call) sqlfake.Result {
		if strings.Contains(call.SQL, "INSERT") {
			return sqlfake.Result{Rows: [][]any{{a}}}
		}
		return sqlfake.Result{Rows: [][]any{{c}}} // a lost try committed c
	})
	in, err := NewInbox(db, layout())
	require.NoError(t, err)
	rows := []queuebox.ReceivedRow{received(), received(), received()}
	rows[0].ID, rows[1].ID, rows[2].ID = a, b, c
	got, err := in.InsertBatch(t.Context(), rows)
	require.NoError(t, err)
	require.Equal(t, []queuebox.InsertResult{{ID: a, Inserted: true}, {}, {ID: c, Inserted: true}}, got)
	calls := fake.Calls()
	require.Len(t, calls, 2)
	var sent []map[string]any
	require.NoError(t, json.Unmarshal([]byte(calls[0].Args[0].(string)), &sent))
	require.Len(t, sent, 3)
	require.Equal(t, map[string]any{"ord": 1.0, "id": b, "source": "stripe", "idempotency_key": "evt_1",
		"aggregate_id": nil, "event_type": nil, "payload": `{"a":1}`, "headers": `{}`, "correlation_id": nil,
		"consumption": "push", "state": "pending", "last_error": nil}, sent[1])
	require.JSONEq(t, `["`+a+`","`+b+`","`+c+`"]`, calls[1].Args[0].(string))
}

// TestInboxInsertBatchRefusedValueFailsItsRowAlone: a refused value fails
// the statement, and the rows go again one by one, so only the row that
// holds it fails.
func TestInboxInsertBatchRefusedValueFailsItsRowAlone(t *testing.T) {
	t.Parallel()
	db, _ := fakeDB(t, func(call sqlfake.Call) sqlfake.Result {
		switch {
		case strings.Contains(call.SQL, "OPENJSON(@p1) WITH"), len(call.Args) > 2 && call.Args[2] == "too long":
			return sqlfake.Result{Err: mssql.Error{Number: 8152, Message: "String or binary data would be truncated."}}
		}
		return sqlfake.Result{Rows: [][]any{{call.Args[0]}}}
	})
	in, err := NewInbox(db, layout())
	require.NoError(t, err)
	rows := []queuebox.ReceivedRow{received(), received(), received()}
	rows[1].IdempotencyKey = "too long"
	rows[2].IdempotencyKey = "evt_2"
	got, err := in.InsertBatch(t.Context(), rows)
	require.NoError(t, err)
	require.True(t, got[0].Inserted)
	require.ErrorIs(t, got[1].Err, queuebox.ErrRefusedValue)
	require.True(t, got[2].Inserted)
}
