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
	require.JSONEq(t, `{"would_move":2}`, body)
	require.Empty(t, f.pending(t), "a dry run moves nothing")
	require.Equal(t, []int{0}, f.store.countLimits, "a dry run counts without a bound")
	code, body = f.post(t, `{"dryRun":true}`, authz...)
	require.Equal(t, http.StatusBadRequest, code, "dryRun is no filter")
	require.JSONEq(t, `{"error":"A replay needs at least one filter."}`, body)
}

// One request moves at most 10,000 rows, in batches of 500; a wider
// filter is refused whole, and a dry run still tells its size. The
// route counts one row past the bound, not the whole filter.
func TestReplayIsBoundedPerRequest(t *testing.T) {
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
	insert("bulk.wide", admin.MaxReplayRows+1)
	insert("bulk.narrow", 1201)

	code, body := f.post(t, `{"topic":"bulk.wide"}`, authz...)
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Contains(t, body, "more than 10000 rows")
	require.Empty(t, f.pending(t))
	require.Equal(t, []int{admin.MaxReplayRows + 1}, f.store.countLimits, "the count stops one row past the bound")
	code, body = f.post(t, `{"createdAfter":"1970-01-01T00:00:00Z","dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, fmt.Sprintf(`{"would_move":%d}`, 10001+1201+4), body)

	code, body = f.post(t, `{"topic":"bulk.narrow"}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":1201}`, body)
	require.Len(t, f.pending(t), 1201)
	require.Equal(t, []int{admin.ReplayBatchRows, admin.ReplayBatchRows, admin.ReplayBatchRows}, f.store.moveLimits,
		"batches of 500 until one comes back short")
}
