package nats_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/ingest/ingesttest"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// TestConsumerStoresOnceAndAcksAfterTheStore: at the insert the message is
// still unacknowledged; after it, nothing is pending. The row carries the
// attributes, the headers (last value of a repeated name) and the
// correlation id.
func TestConsumerStoresOnceAndAcksAfterTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(s *source) {
		s.AggregateIDPath, s.EventTypePath = "$.customer", "$.type"
	})
	var mu sync.Mutex
	var atInsert []int
	f.store.SetFail(func(context.Context, int, queuebox.ReceivedRow) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := f.stream.Consumer(ctx, f.src.Durable)
		if err != nil {
			return nil
		}
		info, err := c.Info(ctx)
		if err == nil {
			mu.Lock()
			atInsert = append(atInsert, info.NumAckPending)
			mu.Unlock()
		}
		return nil
	})
	f.run(t)
	f.publish(t, `{"id":"evt-1","customer":"c-9","type":"order.created"}`,
		"X-Tenant", "acme", "X-Correlation-ID", "corr-1")
	rows := f.waitRows(t, 1)
	f.settled(t)
	require.Len(t, rows, 1)
	r := rows[0]
	require.Equal(t, f.src.Name, r.Source)
	require.Equal(t, "evt-1", r.IdempotencyKey)
	require.Equal(t, "c-9", *r.AggregateID)
	require.Equal(t, "order.created", *r.EventType)
	require.Equal(t, "corr-1", r.CorrelationID)
	require.Equal(t, "acme", r.Headers["x-tenant"])
	require.Equal(t, queuebox.StatePending, effectiveState(r))
	mu.Lock()
	require.Equal(t, []int{1}, atInsert, "the message is unacknowledged while its row is written")
	mu.Unlock()
}

func effectiveState(r queuebox.ReceivedRow) queuebox.State {
	if r.State == "" {
		return queuebox.StatePending
	}
	return r.State
}

// TestConsumerRepeatedHeaderKeepsLastValue sends a header with two values.
func TestConsumerRepeatedHeaderKeepsLastValue(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.run(t)
	nc, _ := natstest.Connect(t, natstest.URL())
	msg := natsMsg(f.prefix+".in", `{"id":"multi"}`)
	msg.Header.Add("X-Multi", "first")
	msg.Header.Add("X-Multi", "last")
	resp, err := nc.RequestMsg(msg, 10*time.Second)
	require.NoError(t, err, "publish")
	require.NotContains(t, string(resp.Data), "error")
	rows := f.waitRows(t, 1)
	require.Equal(t, "last", rows[0].Headers["x-multi"])
	require.NotContains(t, rows[0].Headers, "X-Multi")
}

// TestConsumerIdempotencyKeys: the key header, the body path, Nats-Msg-Id
// and the digest, in this order; a repeat of a key stores nothing.
func TestConsumerIdempotencyKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.run(t)
	f.publish(t, `{"id":"body-1","n":1}`, "x-idempotency-key", "hdr-1", "Nats-Msg-Id", "m-0")
	f.publish(t, `{"id":"body-2","n":2}`, "X-Idempotency-Key", "hdr-1") // duplicate by header
	f.publish(t, `{"id":"body-3","n":3}`, "Nats-Msg-Id", "m-3")
	f.publish(t, `{"id":"body-3","n":4}`) // duplicate by body path
	f.publish(t, `{"n":5}`, "Nats-Msg-Id", "m-5")
	f.publish(t, `{"n":6}`)
	f.publish(t, `{"n":6}`) // duplicate by digest
	f.settled(t)
	sum := sha256.Sum256([]byte(`{"n":6}`))
	var keys []string
	for _, r := range f.store.Rows() {
		keys = append(keys, r.IdempotencyKey)
	}
	require.Equal(t, []string{"hdr-1", "body-3", "m-5", "sha256:" + hex.EncodeToString(sum[:])}, keys)
}

// TestConsumerDeadRows: a body that is not JSON becomes a dead {"raw": …}
// row, a source transform that fails (onError Dead) a dead row with the
// original payload; both messages are acknowledged.
func TestConsumerDeadRows(t *testing.T) {
	t.Parallel()
	t.Run("not JSON", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		f.run(t)
		f.publish(t, `not json at all`)
		rows := f.waitRows(t, 1)
		f.settled(t)
		require.Equal(t, queuebox.StateDead, rows[0].State)
		var raw map[string]string
		require.NoError(t, json.Unmarshal(rows[0].Payload, &raw))
		require.Equal(t, map[string]string{"raw": "not json at all"}, raw)
	})
	t.Run("transform Dead", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, func(s *source) {
			s.Transform = &ingest.TransformSpec{Expression: `$error("refused")`, TimeoutMs: 1000, MaxDepth: 100, OnError: ingest.OnErrorDead}
		})
		f.run(t)
		body := `{"id":"evt-t","keep":"me"}`
		f.publish(t, body)
		rows := f.waitRows(t, 1)
		f.settled(t)
		require.Equal(t, queuebox.StateDead, rows[0].State)
		require.JSONEq(t, body, string(rows[0].Payload), "the original payload")
		require.NotNil(t, rows[0].LastError)
	})
}

// TestConsumerFilter: a message the filter drops is acknowledged and
// leaves no row.
func TestConsumerFilter(t *testing.T) {
	t.Parallel()
	acme := "acme"
	f := newFixture(t, func(s *source) {
		s.Filter = &ingest.FilterSpec{Require: []ingest.FilterRule{{Header: "X-Tenant", Equals: &acme}}}
	})
	f.run(t)
	f.publish(t, `{"id":"other"}`, "X-Tenant", "other")
	f.publish(t, `{"id":"none"}`)
	f.publish(t, `{"id":"kept"}`, "X-Tenant", "acme")
	f.settled(t)
	rows := f.store.Rows()
	require.Len(t, rows, 1)
	require.Equal(t, "kept", rows[0].IdempotencyKey)
}

// TestConsumerFilterSubject reads only the subjects of filterSubject.
func TestConsumerFilterSubject(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.src.FilterSubject = f.prefix + ".wanted"
	f.run(t)
	natstest.Publish(t, f.js, f.prefix+".other", []byte(`{"id":"other"}`), nil)
	natstest.Publish(t, f.js, f.prefix+".wanted", []byte(`{"id":"wanted"}`), nil)
	f.settled(t)
	rows := f.store.Rows()
	require.Len(t, rows, 1)
	require.Equal(t, "wanted", rows[0].IdempotencyKey)
}

// TestConsumerMissingStream: a missing stream stops the source, not Run;
// the source reports the stream and its setting, and binds once the
// stream exists.
func TestConsumerMissingStream(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.URL())
	sfx := natstest.Suffix()
	subject := "qbtest." + strings.ToLower(sfx) + ".late"
	src := natsSource("orders", "QBTEST_LATE_"+sfx)
	store := &ingesttest.Inbox{}
	c := consumerFor(t, src, store)
	runConsumer(t, c)
	require.Eventually(t, func() bool {
		err := c.Check(context.Background())
		return err != nil && strings.Contains(err.Error(), src.Stream)
	}, 30*time.Second, 10*time.Millisecond, "down with the missing stream")
	err := c.Check(context.Background())
	require.ErrorContains(t, err, "sources.orders.stream")
	require.ErrorContains(t, err, "never creates a stream")
	require.Equal(t, "nats.orders", c.Name())

	natstest.StreamOn(t, js, src.Stream, subject)
	require.Eventually(t, func() bool { return c.Check(context.Background()) == nil },
		60*time.Second, 10*time.Millisecond, "up once the stream exists")
	natstest.Publish(t, js, subject, []byte(`{"id":"late-1"}`), nil)
	require.Eventually(t, func() bool { return len(store.Rows()) == 1 }, 30*time.Second, 10*time.Millisecond, "stored")
}

func TestNewConsumerRefusesBadOptions(t *testing.T) {
	t.Parallel()
	recv := consumerFor(t, natsSource("orders", "S"), &ingesttest.Inbox{}) // a valid one
	require.Equal(t, "nats.orders", recv.Name())
	_, err := natsb.NewConsumer(natsb.ConsumerOptions{Conn: natsb.Conn{Servers: natstest.URL()}, Stream: "S", Durable: "d"})
	require.ErrorContains(t, err, "Receiver is required")
}
