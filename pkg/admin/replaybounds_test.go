package admin_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestReplayDryRunCountsAndMovesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, enabled())
	code, body := f.post(t, `{"topic":"invoice.paid","dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"wouldMove":2,"would_move":2}`, body)
	require.Empty(t, f.pending(t), "a dry run moves nothing")
	require.Equal(t, []int{0}, f.store.countLimits, "a dry run counts without a bound")
	code, body = f.post(t, `{"dryRun":true}`, authz...)
	require.Equal(t, http.StatusBadRequest, code, "dryRun is no filter")
	require.JSONEq(t, `{"error":"A replay needs at least one filter."}`, body)
}

// One request moves at most 500 rows itself, in one statement; a wider
// filter becomes a job with the full count, and the request moves
// nothing. The route counts one row past the bound before it counts the
// whole filter for the job.
func TestReplayOfManyRowsBecomesAJob(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	cfg.MaxPayloadBytes = 4096
	f := newFixture(t, cfg)
	insert := func(topic string, n int) {
		rows := make([]memRow, n)
		for i := range rows {
			rows[i] = memRow{id: fmt.Sprintf("%s-%d", topic, i), topic: topic, state: queuebox.StateDead,
				created: instant("2026-09-25T00:00:00Z")}
		}
		f.store.add(rows...)
	}
	insert("bulk.wide", 1201)
	insert("bulk.narrow", admin.ReplayBatchRows)

	code, body := f.post(t, `{"topic":"bulk.wide"}`, authz...)
	require.Equal(t, http.StatusAccepted, code, body)
	require.JSONEq(t, `{"job":"00000000-0000-0000-0000-000000000001","matched":1201}`, body)
	require.Empty(t, f.pending(t), "the job runner moves the rows, not the request")
	require.Equal(t, []int{admin.ReplayBatchRows + 1, 0}, f.store.countLimits, "one row past the bound, then all")
	require.Equal(t, []string{"bulk.wide"}, f.store.jobs[0].Filter.Topics)
	code, body = f.post(t, `{"createdAfter":"1970-01-01T00:00:00Z","dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, fmt.Sprintf(`{"wouldMove":%d,"would_move":%[1]d}`, 1201+admin.ReplayBatchRows+4), body)

	code, body = f.post(t, `{"topic":"bulk.narrow"}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, fmt.Sprintf(`{"moved":%d}`, admin.ReplayBatchRows), body)
	require.Len(t, f.pending(t), admin.ReplayBatchRows)
	require.Equal(t, []int{admin.ReplayBatchRows}, f.store.moveLimits, "one statement")
}
