package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaBroker is the Kafka bridge as the brokers scenario drives it,
// against kfake: the Kafka protocol served from memory inside this
// process (github.com/twmb/franz-go/pkg/kfake), with no replication and
// no disk. Its figures show what QueueBox costs around a Kafka client,
// not what a real Kafka cluster sustains.
var kafkaBroker = broker{
	label: "Kafka (kfake)", client: "librdkafka (confluent-kafka-go)", ack: "delivery report", target: newKafkaTarget,
	durability: "kfake in-memory fake broker (no replication, no disk: QueueBox's cost, not a real broker's), acks=all, idempotence, linger.ms 0",
	fetch:      fixed("maxPollRecords 100, each poll stored as one group, offsets committed after it"),
}

// kafkaSeq numbers the topics of this process.
var kafkaSeq atomic.Int64

var (
	kfakeOnce sync.Once
	kfakeAddr string
	kfakeErr  error
)

// kfakeCluster starts, once per process, a one-broker kfake cluster on a
// loopback port the kernel picks; it runs until the process exits.
func kfakeCluster() (string, error) {
	kfakeOnce.Do(func() {
		c, err := kfake.NewCluster(kfake.NumBrokers(1))
		if err != nil {
			kfakeErr = fmt.Errorf("start kfake: %w", err)
			return
		}
		kfakeAddr = strings.Join(c.ListenAddrs(), ",")
	})
	return kfakeAddr, kfakeErr
}

// kafkaTarget is one topic of one partition on the kfake cluster, named
// for this process and measurement.
type kafkaTarget struct {
	addr, topic string
	group       string      // of the ingest source
	cl          *kgo.Client // franz-go, to create, count and read
	adm         *kadm.Client
}

func newKafkaTarget(ctx context.Context, tag string) (target, error) {
	addr, err := kfakeCluster()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(addr, ",")...), kgo.ClientID("qbbench"))
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("qbbench.%d.%s.%d", os.Getpid(), tag, kafkaSeq.Add(1))
	t := &kafkaTarget{addr: addr, topic: name, group: name + ".ingest", cl: cl, adm: kadm.NewClient(cl)}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := t.adm.CreateTopic(cctx, 1, 1, nil, t.topic)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("create topic %s: %w", t.topic, err)
	}
	return t, nil
}

// destinationEnv is the destination "broker": the topic, with the
// publisher's defaults (acks=all, idempotence, key {{ key }}: the rows
// have none, so the records carry no key).
func (t *kafkaTarget) destinationEnv() map[string]string {
	return map[string]string{
		"QUEUEBOX_DESTINATIONS_BROKER_TYPE":             "kafka",
		"QUEUEBOX_DESTINATIONS_BROKER_BOOTSTRAPSERVERS": t.addr,
		"QUEUEBOX_DESTINATIONS_BROKER_TOPIC":            t.topic,
	}
}

// sourceEnv is the source "bench" on the topic, in a group of its own (<topic>.ingest),
// with the default maxPollRecords (100), from the earliest offset.
func (t *kafkaTarget) sourceEnv() map[string]string {
	return map[string]string{
		"QUEUEBOX_SOURCES_BENCH_TYPE":               "kafka",
		"QUEUEBOX_SOURCES_BENCH_BOOTSTRAPSERVERS":   t.addr,
		"QUEUEBOX_SOURCES_BENCH_TOPICS_0":           t.topic,
		"QUEUEBOX_SOURCES_BENCH_GROUPID":            t.group,
		"QUEUEBOX_SOURCES_BENCH_AUTOOFFSETRESET":    "earliest",
		"QUEUEBOX_SOURCES_BENCH_IDEMPOTENCYKEYPATH": "$.id",
		"QUEUEBOX_SOURCES_BENCH_EVENTTYPEPATH":      "$.type",
		"QUEUEBOX_SOURCES_BENCH_AGGREGATEIDPATH":    "$.customer",
		"QUEUEBOX_SOURCES_BENCH_TOPIC":              "bench.{{ eventType }}",
	}
}

// publish produces to the topic from conc goroutines on one librdkafka
// producer with the settings of queuebox-deliver's (acks=all,
// idempotence, linger.ms 0, a 30 s message timeout), each waiting for
// its record's delivery report before it sends the next, with the
// headers the destination sets (x-message-id, x-topic, x-attempt).
func (t *kafkaTarget) publish(ctx context.Context, n, conc int, msg func(i int) rawMessage) error {
	p, err := ckafka.NewProducer(&ckafka.ConfigMap{
		"bootstrap.servers": t.addr, "client.id": "qbbench-raw",
		"acks": "all", "enable.idempotence": true, "linger.ms": 0, "message.timeout.ms": 30000,
		"go.logs.channel.enable": true,
	})
	if err != nil {
		return err
	}
	go func() {
		for range p.Logs() { // librdkafka's log lines, not wanted here
		}
	}()
	defer p.Close()
	return publishAll(ctx, n, conc, func(ctx context.Context, i int) error {
		m := msg(i)
		report := make(chan ckafka.Event, 1)
		err := p.Produce(&ckafka.Message{
			TopicPartition: ckafka.TopicPartition{Topic: &t.topic, Partition: ckafka.PartitionAny},
			Value:          m.Body,
			Headers: []ckafka.Header{
				{Key: "x-message-id", Value: []byte(m.ID)},
				{Key: "x-topic", Value: []byte(m.Topic)},
				{Key: "x-attempt", Value: []byte(strconv.Itoa(1))},
			},
		}, report)
		if err != nil {
			return err
		}
		select {
		case ev := <-report:
			if dm, ok := ev.(*ckafka.Message); ok {
				return dm.TopicPartition.Error
			}
			return fmt.Errorf("unexpected delivery event %v", ev)
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// ends returns the high watermark of each partition of the topic.
func (t *kafkaTarget) ends(ctx context.Context) (map[int32]int64, error) {
	lo, err := t.adm.ListEndOffsets(ctx, t.topic)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	var errs []error
	lo.Each(func(o kadm.ListedOffset) {
		errs = append(errs, o.Err)
		out[o.Partition] = o.Offset
	})
	return out, errors.Join(errs...)
}

// stored is the number of records in the topic.
func (t *kafkaTarget) stored(ctx context.Context) (int64, error) {
	ends, err := t.ends(ctx)
	var n int64
	for _, e := range ends {
		n += e
	}
	return n, err
}

// firstBody reads the first record of the topic.
func (t *kafkaTarget) firstBody(ctx context.Context) ([]byte, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(t.addr, ",")...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{t.topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		fs := cl.PollRecords(cctx, 1)
		if cctx.Err() != nil {
			return nil, fmt.Errorf("read the first record of %s: %w", t.topic, cctx.Err())
		}
		if rs := fs.Records(); len(rs) > 0 {
			return rs[0].Value, nil
		}
	}
}

// settled checks, once queuebox-ingest stopped, that its group committed
// the end offset of every partition.
func (t *kafkaTarget) settled(ctx context.Context) error {
	ends, err := t.ends(ctx)
	if err != nil {
		return err
	}
	offs, err := t.adm.FetchOffsets(ctx, t.group)
	if err != nil {
		return fmt.Errorf("fetch the offsets of group %s: %w", t.group, err)
	}
	for p, end := range ends {
		o, ok := offs.Lookup(t.topic, p)
		if !ok || o.Err != nil || o.At != end {
			return fmt.Errorf("group %s: partition %d committed at %d (err %v), end offset %d", t.group, p, o.At, o.Err, end)
		}
	}
	return nil
}

// close deletes the topic and the group and closes the client.
func (t *kafkaTarget) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := t.adm.DeleteTopic(ctx, t.topic); err != nil {
		logf("warning: delete topic %s: %v", t.topic, err)
	}
	_, _ = t.adm.DeleteGroup(ctx, t.group)
	t.cl.Close()
}
