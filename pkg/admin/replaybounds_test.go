package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReplayDryRunCountsAndMovesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, enabled())
	code, body := f.post(t, `{"topic":"invoice.paid","dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"would_move":2}`, body)
	require.Empty(t, f.pending(t), "a dry run moves nothing")
	code, body = f.post(t, `{"dryRun":true}`, authz...)
	require.Equal(t, http.StatusBadRequest, code, "dryRun is no filter")
	require.JSONEq(t, `{"error":"A replay needs at least one filter."}`, body)
}

// One request moves at most 10,000 rows, in batches; a wider filter is
// refused whole, and a dry run still tells its size.
func TestReplayIsBoundedPerRequest(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	cfg.MaxPayloadBytes = 4096
	f := newFixture(t, cfg)
	insert := func(topic string, n int) {
		_, err := f.conn.Exec(context.Background(), `INSERT INTO outbox (topic, payload, state)
			SELECT $1, '{}', 'dead' FROM generate_series(1, $2)`, topic, n)
		require.NoError(t, err)
	}
	insert("bulk.wide", 10001)
	insert("bulk.narrow", 1201)
	moved := func() int {
		var n int
		require.NoError(t, f.conn.QueryRow(context.Background(),
			`SELECT count(*) FROM outbox WHERE topic LIKE 'bulk.%' AND state = 'pending'`).Scan(&n))
		return n
	}

	code, body := f.post(t, `{"topic":"bulk.wide"}`, authz...)
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Contains(t, body, "more than 10000 rows")
	require.Zero(t, moved())
	code, body = f.post(t, `{"createdAfter":"1970-01-01T00:00:00Z","dryRun":true}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, fmt.Sprintf(`{"would_move":%d}`, 10001+1201+4), body)

	code, body = f.post(t, `{"topic":"bulk.narrow"}`, authz...)
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"moved":1201}`, body)
	require.Equal(t, 1201, moved())
}
