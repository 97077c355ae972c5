// Package kafkatest holds what the Kafka tests share: an in-process kfake
// cluster (github.com/twmb/franz-go/pkg/kfake, the Kafka protocol on a
// loopback port) that a test closes when it ends, topics with random
// names, and a franz-go client to produce records and to read back what a
// topic and a consumer group hold. It imports testing; import it from
// tests only.
package kafkatest

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// wait bounds one call of a helper; only a hang exceeds it.
const wait = 30 * time.Second

// Cluster starts a one-broker kfake cluster on a random loopback port and
// closes it when t ends. It returns the cluster and its bootstrap
// address.
func Cluster(t testing.TB, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	require.NoError(t, err, "start kfake")
	t.Cleanup(c.Close)
	return c, strings.Join(c.ListenAddrs(), ",")
}

// Suffix returns a random lower-case name part, unique enough for
// parallel tests.
func Suffix() string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 10)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}

// Topic creates a topic with a random name and the given partitions.
func Topic(t testing.TB, c *kfake.Cluster, partitions int32) string {
	t.Helper()
	name := "qbtest." + Suffix()
	require.NoError(t, c.CreateTopic(name, partitions, nil), "create topic %s", name)
	return name
}

// Client returns a franz-go client of addr that closes when t ends.
func Client(t testing.TB, addr string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(addr, ",")...)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// Produce writes the records synchronously and fails t unless every one
// is stored.
func Produce(t testing.TB, cl *kgo.Client, records ...*kgo.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	require.NoError(t, cl.ProduceSync(ctx, records...).FirstErr(), "produce")
}

// Records returns every record the topic holds, by partition, then
// offset.
func Records(t testing.TB, addr, topic string) []*kgo.Record {
	t.Helper()
	ends := EndOffsets(t, addr, topic)
	var total int64
	for _, end := range ends {
		total += end
	}
	var out []*kgo.Record
	if total == 0 {
		return nil
	}
	cl := Client(t, addr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for int64(len(out)) < total {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "read %d records of %s, got %d", total, topic, len(out))
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	cl.Close()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// EndOffsets returns the high watermark of each partition of topic.
func EndOffsets(t testing.TB, addr, topic string) map[int32]int64 {
	t.Helper()
	adm := kadm.NewClient(Client(t, addr))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ends, err := adm.ListEndOffsets(ctx, topic)
	require.NoError(t, err)
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		require.NoError(t, o.Err)
		out[o.Partition] = o.Offset
	})
	return out
}

// Committed returns the offsets that group committed on topic, by
// partition; a partition without a commit is absent.
func Committed(t testing.TB, addr, group, topic string) map[int32]int64 {
	t.Helper()
	adm := kadm.NewClient(Client(t, addr))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	offs, err := adm.FetchOffsets(ctx, group)
	require.NoError(t, err)
	out := map[int32]int64{}
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic && o.Err == nil && o.At >= 0 {
			out[o.Partition] = o.At
		}
	})
	return out
}

// Header returns the values of the record header name, in order.
func Header(r *kgo.Record, name string) []string {
	var out []string
	for _, h := range r.Headers {
		if h.Key == name {
			out = append(out, string(h.Value))
		}
	}
	return out
}
