package brokertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// sourceMaxBody is the body bound of the receiver of the limit cases.
const sourceMaxBody = 1024

// realReceiver is the receive step of a broker source as ingest builds it
// (dead-letter mode, the broker order, a body bound of sourceMaxBody),
// over an inbox that refuses what PostgreSQL refuses: a NUL or invalid
// UTF-8 in a text column or a header.
func realReceiver(t *testing.T) (*ingest.Receiver, *ingesttest.Inbox) {
	t.Helper()
	inbox := &ingesttest.Inbox{Refuse: ingesttest.RefuseAsPostgres}
	m, err := ingest.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	r, err := ingest.NewReceiver(ingest.Source{Name: NewSourceReceiver().Name(), IdempotencyKeyPath: "$.id"},
		ingest.Transport{DeadLetter: true, BrokerAttributes: true, MaxBodyBytes: sourceMaxBody},
		ingest.Options{Store: inbox, Metrics: m})
	require.NoError(t, err)
	return r, inbox
}

// A message past the body bound, and one past the header cap, are stored
// dead with a reason, and acknowledged: neither comes again.
func testSourcePastTheLimits(t *testing.T, b SourceBroker) {
	recv, inbox := realReceiver(t)
	b.Publish(t, fmt.Appendf(nil, `{"id":"big","pad":%q}`, strings.Repeat("x", 3*ingest.DeadBodyPrefix)), nil)
	headers := map[string]string{}
	for i := range ingest.MaxStoredHeaders + 6 {
		headers[fmt.Sprintf("x-h-%03d", i)] = "v"
	}
	b.Publish(t, []byte(`{"id":"many"}`), headers)
	stop := startSource(t, b, recv, sourceDrain)
	inbox.WaitRows(t, 2)
	stop()
	requireRemaining(t, b, 0, "a message past a limit is acknowledged once its dead row is stored")
	for _, row := range inbox.Rows() {
		require.Equal(t, queuebox.StateDead, row.State)
		require.Empty(t, ingest.HeadersTooLarge(row.Headers), "the dead row keeps headers within the cap")
		require.LessOrEqual(t, len(row.Payload), ingest.DeadBodyPrefix+64, "the dead row keeps a cut of the body")
		if row.IdempotencyKey == "many" {
			require.True(t, strings.HasPrefix(*row.LastError, "headers: "), *row.LastError)
			continue
		}
		require.True(t, strings.HasPrefix(*row.LastError, "size: "), *row.LastError)
	}
}

// A header with a NUL or invalid UTF-8, which the database refuses as it
// came, is cleaned: the message is stored and acknowledged.
func testSourceHeaderWithNUL(t *testing.T, b SourceBroker) {
	recv, inbox := realReceiver(t)
	b.Publish(t, []byte(`{"id":"nul"}`), map[string]string{"x-tenant": "a\x00b", "x-region": "eu\xff"})
	stop := startSource(t, b, recv, sourceDrain)
	inbox.WaitRows(t, 1)
	stop()
	requireRemaining(t, b, 0, "the stored message was acknowledged")
	row := inbox.Row(t, "nul")
	require.Equal(t, queuebox.State(""), row.State, "a pending row")
	require.Equal(t, "ab", row.Headers["x-tenant"])
	// A transport may keep bytes that are not UTF-8 as "base64:" text
	// (Kafka) or hand them on for the receive step to clean.
	require.Contains(t, []string{"eu\uFFFD", "base64:ZXX/"}, row.Headers["x-region"])
	require.Equal(t, 1, inbox.Inserts(), "stored at the first try")
}
