package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// An outcome write finds each of its rows through the primary key,
// whatever the statistics say of the processing rows. Analyzed at a quiet
// moment, with no row processing, the partial index of processing rows
// looks empty, and the planner used to scan all of it once per row
// written; with an old transaction open, that index holds a dead entry
// for every row claimed since, so each write took seconds (the soak's
// idle transaction brought delivery down to tens of rows a second).
func TestOutcomeWriteFindsItsRowsByTheirID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, l := boundSchema(t)
	l = l.WithoutLedger()
	exec(t, db, `INSERT INTO outbox (topic, payload, state) SELECT 't', '{}', 'sent' FROM generate_series(1, 20000)`)
	exec(t, db, "ANALYZE outbox")
	exec(t, db, `INSERT INTO outbox (topic, payload) SELECT 't', '{}' FROM generate_series(1, 1000)`)
	ob, err := postgres.NewOutbox(db, l, time.Minute)
	require.NoError(t, err)
	var ids, tokens []string
	for len(ids) < 1000 {
		msgs, err := ob.Claim(ctx, 100)
		require.NoError(t, err)
		require.NotEmpty(t, msgs)
		for _, m := range msgs {
			ids, tokens = append(ids, m.ID), append(tokens, m.ClaimToken)
		}
	}
	stmt, err := postgres.Render("outbox_finish", l)
	require.NoError(t, err)
	n := boundBatch
	fill := func(v string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	plan := explainPlanIn(t, db, "BEGIN", stmt, ids[:n], tokens[:n], fill("sent"), make([]int64, n), fill(""), nil, fill(""))
	require.Equal(t, float64(n), plan.Rows, "every row's fence holds")
	for _, scan := range plan.ranScans(nil) {
		require.NotContains(t, scan, "idx_outbox_processing_claimed", "the write reads the processing rows' index: %v", plan.ranScans(nil))
	}
	require.LessOrEqual(t, plan.touched(), float64(4*n), "rows the write's scans touched: %v", plan.scans(nil))
}
