package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/kafka/kafkatest"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestConsumerStoresOnceAndCommitsAfterTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2, nil)
	for i := range 10 {
		f.produce(t, int32(i%2), nil, fmt.Sprintf(`{"id":"m-%d","type":"order.created"}`, i),
			"X-Correlation-Id", fmt.Sprintf("corr-%d", i), "x-tenant", "acme")
	}
	f.run(t)
	rows := f.waitRows(t, 10)
	f.committedAll(t)
	require.Len(t, f.store.Rows(), 10)
	keys := map[string]bool{}
	for _, r := range rows {
		keys[r.IdempotencyKey] = true
		require.Equal(t, "acme", r.Headers["x-tenant"])
		require.Contains(t, r.CorrelationID, "corr-")
		require.Equal(t, queuebox.State(""), r.State)
	}
	require.Len(t, keys, 10)
}

// TestConsumerStoreFailureSeeksBack fails the store of records 3 and
// later of one partition. A poll is stored as one group in one commit, so
// the group that holds record 3 stores nothing, commits no offset and is
// read again from its first record; no offset past 3 is committed, only
// rows of groups before it may be stored, and once the store recovers
// every record is stored once.
func TestConsumerStoreFailureSeeksBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, nil)
	var triesOf3 atomic.Int32
	f.store.SetFail(func(_ context.Context, _ int, r queuebox.ReceivedRow) error {
		var doc struct{ N int }
		_ = json.Unmarshal(r.Payload, &doc)
		if doc.N == 3 {
			triesOf3.Add(1)
		}
		if doc.N >= 3 {
			return ingesttest.ErrDown
		}
		return nil
	})
	for i := range 6 {
		f.produce(t, 0, nil, fmt.Sprintf(`{"id":"m-%d","n":%d}`, i, i))
	}
	f.run(t)
	// The group of record 3 is retried after a backoff: two tries of it
	// mean the first failed group was given back whole.
	require.Eventually(t, func() bool { return triesOf3.Load() >= 2 }, 60*time.Second, 10*time.Millisecond)
	committed, ok := kafkatest.Committed(t, f.addr, f.src.GroupID, f.topic)[0]
	require.True(t, !ok || committed <= 3, "committed %d: nothing past the failing record", committed)
	for _, r := range f.store.Rows() {
		require.Contains(t, []string{"m-0", "m-1", "m-2"}, r.IdempotencyKey, "only rows of groups before record 3")
	}

	f.store.SetFail(nil)
	f.waitRows(t, 6)
	f.committedAll(t)
	require.Len(t, f.store.Rows(), 6)
}

// TestConsumerIdempotencyKeyOrder checks the order of page 08: header,
// body path, record key, digest.
func TestConsumerIdempotencyKeyOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, nil)
	f.produce(t, 0, []byte("rk-1"), `{"id":"path-1","v":1}`, "x-idempotency-key", "hdr-1")
	f.produce(t, 0, []byte("rk-1"), `{"id":"path-1","v":2}`, "x-idempotency-key", "hdr-1") // duplicate by header
	f.produce(t, 0, []byte("rk-2"), `{"id":"path-2","v":3}`)
	f.produce(t, 0, []byte("rk-3"), `{"id":"path-2","v":4}`) // duplicate by path
	f.produce(t, 0, []byte("rk-4"), `{"v":5}`)
	f.produce(t, 0, []byte("rk-4"), `{"v":6}`) // duplicate by record key
	f.produce(t, 0, nil, `{"v":7}`)
	f.produce(t, 0, nil, `{"v":7}`) // duplicate by digest
	f.run(t)
	f.committedAll(t)
	rows := f.store.Rows()
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.IdempotencyKey)
	}
	require.Len(t, keys, 4, "%v", keys)
	require.Equal(t, []string{"hdr-1", "path-2", "rk-4"}, keys[:3])
	require.True(t, strings.HasPrefix(keys[3], "sha256:"), "a SHA-256 digest: %s", keys[3])
	// The aggregate id falls back to the record key.
	require.NotNil(t, rows[2].AggregateID)
	require.Equal(t, "rk-4", *rows[2].AggregateID)
}

func TestConsumerNonJSONIsDeadAndMovesOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, nil)
	f.produce(t, 0, []byte("k"), "not json")
	f.produce(t, 0, nil, `{"id":"after"}`)
	f.run(t)
	rows := f.waitRows(t, 2)
	f.committedAll(t)
	require.Equal(t, queuebox.StateDead, rows[0].State)
	require.JSONEq(t, `{"raw":"not json"}`, string(rows[0].Payload))
	require.Equal(t, "after", rows[1].IdempotencyKey)
}

func TestConsumerTransformDeadKeepsTheOriginal(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, func(s *source) {
		s.Transform = &ingest.TransformSpec{Expression: `$error("nope")`, OnError: ingest.OnErrorDead, TimeoutMs: 1000}
	})
	f.produce(t, 0, nil, `{"id":"t1","a":1}`)
	f.run(t)
	rows := f.waitRows(t, 1)
	f.committedAll(t)
	require.Equal(t, queuebox.StateDead, rows[0].State)
	require.JSONEq(t, `{"id":"t1","a":1}`, string(rows[0].Payload))
}

func TestConsumerFilterDropsAndMovesOn(t *testing.T) {
	t.Parallel()
	eu := "eu"
	f := newFixture(t, 1, func(s *source) {
		s.Filter = &ingest.FilterSpec{Require: []ingest.FilterRule{{Header: "x-region", Equals: &eu}}}
	})
	f.produce(t, 0, nil, `{"id":"us-1"}`, "x-region", "us")
	f.produce(t, 0, nil, `{"id":"eu-1"}`, "x-region", "eu")
	f.run(t)
	f.committedAll(t)
	rows := f.store.Rows()
	require.Len(t, rows, 1)
	require.Equal(t, "eu-1", rows[0].IdempotencyKey)
}

// TestConsumerGroupSharesPartitions runs two consumers of one group while
// records arrive: the second one joins mid-stream (a rebalance), and in
// the end every record is stored once and every offset is committed.
func TestConsumerGroupSharesPartitions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4, func(s *source) { s.MaxPollRecords = 5 })
	const n = 200
	for i := range n / 2 {
		f.produce(t, int32(i%4), nil, fmt.Sprintf(`{"id":"m-%d"}`, i))
	}
	_, stopFirst := f.run(t)
	f.waitRows(t, 10)
	f.run(t)
	for i := n / 2; i < n; i++ {
		f.produce(t, int32(i%4), nil, fmt.Sprintf(`{"id":"m-%d"}`, i))
	}
	f.waitRows(t, n*3/4)
	// The first consumer leaves mid-stream: a second rebalance.
	stopFirst()
	f.waitRows(t, n)
	f.committedAll(t)
	rows := f.store.Rows()
	keys := make([]string, 0, len(rows))
	for _, r := range rows {
		keys = append(keys, r.IdempotencyKey)
	}
	sort.Strings(keys)
	require.Len(t, keys, n, "every record stored once")
}
