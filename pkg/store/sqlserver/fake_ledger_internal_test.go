package sqlserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/sqlserver/sqlfake"
)

// With the delivery ledger written, each element of the outcome write
// also carries the attempt's facts, its start in UTC with the seven
// decimals of a DATETIME2; with the ledger off it carries none, and the
// statement names no ledger.
func TestFinishSendsTheAttemptFactsForTheLedger(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 1, 12, 0, 0, 123456700, time.FixedZone("CET", 3600))
	outcome := queuebox.Outcome{Lease: queuebox.Lease{ID: "a1", Token: "t1"}, Kind: queuebox.OutcomeRetry,
		Delay: time.Second, Error: "HTTP 503", Attempt: queuebox.AttemptFacts{Number: 2, StartedAt: start,
			Duration: 1500 * time.Millisecond, Status: "503", Answer: `{"e":"busy"}`, Class: queuebox.ClassHTTP5xx}}
	for _, tc := range []struct {
		name   string
		ledger bool
		want   string
	}{
		{"ledger on", true, `[{"id":"a1","token":"t1","outcome":"retry","delay_ms":1000,"error":"HTTP 503",
			"attempt":2,"started_at":"2026-12-01T11:00:00.1234567","duration_ms":1500,"class":"http_5xx",
			"status":"503","answer":"{\"e\":\"busy\"}"}]`},
		{"ledger off", false, `[{"id":"a1","token":"t1","outcome":"retry","delay_ms":1000,"error":"HTTP 503"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, fake := fakeDB(t, failFirst("OPENJSON", 0, nil, sqlfake.Result{Rows: [][]any{{"a1"}}}))
			l := layout()
			if !tc.ledger {
				l = l.WithoutLedger()
			}
			o, err := NewOutbox(db, l, time.Minute)
			require.NoError(t, err)
			_, err = o.Finish(t.Context(), []queuebox.Outcome{outcome})
			require.NoError(t, err)
			call := fake.Calls()[1]
			require.JSONEq(t, tc.want, call.Args[0].(string))
			if tc.ledger {
				require.Contains(t, call.SQL, "INTO [outbox_attempts]")
			} else {
				require.NotContains(t, call.SQL, "outbox_attempts")
			}
		})
	}
}
