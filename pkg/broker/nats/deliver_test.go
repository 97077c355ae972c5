package nats_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// TestDeliverThroughNATS runs the poller on PostgreSQL with the NATS
// publisher: a row whose subject a stream holds is sent once the stream
// acknowledged it; a row whose subject no stream holds retries and goes
// dead at its max_attempts, with the reason in last_error.
func TestDeliverThroughNATS(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	stream, prefix := natstest.Stream(t, js)
	s, db := pgtest.Migrated(t, 4)
	store, err := postgres.NewOutbox(db, schema.New(schema.Postgres, schema.DefaultNames()), deliver.DefaultClaimTimeout)
	require.NoError(t, err)
	router, err := deliver.NewRouter([]deliver.RouteSpec{{TopicPattern: "order.**", Destinations: []string{"events"}}},
		map[string]deliver.DestinationSpec{"events": {Name: "events", Kind: "nats"}})
	require.NoError(t, err)
	pub, err := natsb.New(natsb.Options{Name: "events", Conn: natsb.Conn{Servers: natstest.URL()}, SubjectFrom: "key", Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pub.Close() })
	poller, err := deliver.NewPoller(deliver.Options{Store: store, Router: router,
		Publishers: map[string]queuebox.Publisher{"events": pub}, Redactor: redact.New(),
		Metrics: deliver.NewMetrics(prometheus.NewRegistry()), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		PollInterval: 20 * time.Millisecond, RetryBaseDelay: 10 * time.Millisecond, ShutdownTimeout: 5 * time.Second})
	require.NoError(t, err)

	conn := s.Connect(t)
	ctx := context.Background()
	var okID string
	require.NoError(t, conn.QueryRow(ctx, `INSERT INTO outbox (topic, key, payload, headers, max_attempts)
		VALUES ('order.created', $1, '{"n":1}', '{"x-tenant":"acme"}', 3) RETURNING id::text`, prefix+".orders").Scan(&okID))
	_, err = conn.Exec(ctx, `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('order.lost', $1, '{"n":2}', 3)`,
		"qbtest.nostream."+natstest.Suffix())
	require.NoError(t, err)

	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- poller.Run(runCtx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })

	type outRow struct {
		Topic, State string
		Attempt      int
		LastError    *string
	}
	var rows []outRow
	require.Eventually(t, func() bool {
		rs, err := conn.Query(ctx, `SELECT topic, state, attempt, last_error FROM outbox ORDER BY topic`)
		require.NoError(t, err)
		rows = rows[:0]
		for rs.Next() {
			var r outRow
			require.NoError(t, rs.Scan(&r.Topic, &r.State, &r.Attempt, &r.LastError))
			rows = append(rows, r)
		}
		require.NoError(t, rs.Err())
		return len(rows) == 2 && rows[0].State == "sent" && rows[1].State == "dead"
	}, 60*time.Second, 20*time.Millisecond, "one row sent, one dead")
	require.Equal(t, 3, rows[1].Attempt, "dead at its max_attempts")
	require.NotNil(t, rows[1].LastError)
	require.Contains(t, *rows[1].LastError, "no stream holds the subject")

	got := natstest.Messages(t, stream)
	require.Len(t, got, 1)
	require.Equal(t, okID, got[0].Header.Get("x-message-id"))
	require.Equal(t, "acme", got[0].Header.Get("x-tenant"))
	require.Equal(t, prefix+".orders", got[0].Subject)
}
