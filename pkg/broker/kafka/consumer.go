package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/source"
)

// Defaults that NewConsumer applies to zero fields of ConsumerOptions.
const (
	DefaultMaxPollRecords  = 100
	DefaultAutoOffsetReset = "earliest"
)

const (
	// pollWait bounds the wait for the first record of a batch, so that
	// Run sees the end of its context promptly.
	pollWait = 500 * time.Millisecond
	// storeTimeout bounds the store of one group. The group in hand
	// finishes even when the process stops: a row that commits and then
	// gets its offset committed beats a replay.
	storeTimeout = 30 * time.Second
)

// Receiver stores one received message: ingest.Receiver. Its Name is the
// source name.
type Receiver = source.Receiver

// ConsumerOptions configure the consumer of one Kafka source.
type ConsumerOptions struct {
	Conn
	// Topics are the topics to read; one consumer reads them all.
	Topics []string
	// GroupID is the consumer group; every replica of the source shares
	// it, so the replicas divide the partitions.
	GroupID string
	// AutoOffsetReset is where a group without a committed offset starts:
	// earliest (the default) or latest.
	AutoOffsetReset string
	// MaxPollRecords is the largest number of records of one batch, the
	// group stored in one ReceiveBatch. Default 100.
	MaxPollRecords int
	// Receiver stores each record; its Name is the source name. Required.
	Receiver Receiver
	// Redactor knows the secrets of the whole configuration; the consumer
	// adds its own credentials. May be nil.
	Redactor *redact.Redactor
	// Logger receives the group changes, commit failures and librdkafka's
	// errors. May be nil.
	Logger *slog.Logger
	// MaxMessageBytes is the body bound of the receiver
	// (inbox.maxBodyBytes); zero keeps librdkafka's fetch defaults. It
	// sets max.partition.fetch.bytes to it and bounds the prefetch queue
	// (queued.max.messages.kbytes) to MaxPollRecords such messages, never
	// above librdkafka's default of 64 MiB. A record past the bound is
	// still fetched (librdkafka returns a first batch past the limit, so
	// the consumer moves on), and the receiver stores it dead.
	MaxMessageBytes int64
	// MinBackoff and MaxBackoff bound the wait before the next batch after
	// a failed store, which doubles with each failure in a row. Defaults
	// 1 s and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout bounds the store of the group in hand after Run's ctx
	// ended; 30 s bound every store. Default 30 s.
	DrainTimeout time.Duration
}

// Consumer reads one Kafka source into the inbox: a run.Component. It
// polls a batch of at most MaxPollRecords records (the first waited for,
// the rest those already fetched), stores the batch through its Receiver
// in one ReceiveBatch, each partition's records in offset order, and only
// then commits, per partition, the offset after the batch's last record:
// every decision is final (Stored, Duplicate, Filtered, Dead, and
// Rejected, which is never stored). When the batch's store fails it seeks
// each partition back to its first record of the batch and waits
// (MinBackoff … MaxBackoff) before the next poll, so the whole batch is
// read again. A commit that is lost, a crash and a rebalance only replay
// records, which the inbox finds as duplicates.
type Consumer struct {
	opts     ConsumerOptions
	source   string
	log      *slog.Logger
	redactor *redact.Redactor

	runner   *source.Runner
	consumer atomic.Pointer[ckafka.Consumer]
	joined   atomic.Bool
	down     atomic.Bool
	// errs logs the error events of librdkafka, throttled.
	errs *errorLog
	// batch is the batch being collected; the rebalance callback, which
	// runs inside Poll on the Run goroutine, drops the records of revoked
	// partitions from it.
	batch *batch
}

// NewConsumer validates opts and applies the defaults. It does not
// connect; Run does.
func NewConsumer(opts ConsumerOptions) (*Consumer, error) {
	if opts.Receiver == nil {
		return nil, errors.New("kafka source: ConsumerOptions.Receiver is required")
	}
	name := opts.Receiver.Name()
	prefix := "sources." + name
	if err := opts.Conn.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	if strings.TrimSpace(opts.GroupID) == "" {
		return nil, fmt.Errorf("%s: groupId is required", prefix)
	}
	if len(opts.Topics) == 0 {
		return nil, fmt.Errorf("%s: topics must list at least one topic", prefix)
	}
	for _, t := range opts.Topics {
		if strings.TrimSpace(t) == "" {
			return nil, fmt.Errorf("%s: topics: an entry is blank", prefix)
		}
	}
	if opts.AutoOffsetReset == "" {
		opts.AutoOffsetReset = DefaultAutoOffsetReset
	}
	if opts.AutoOffsetReset != "earliest" && opts.AutoOffsetReset != "latest" {
		return nil, fmt.Errorf("%s: autoOffsetReset must be earliest or latest", prefix)
	}
	if opts.MaxPollRecords == 0 {
		opts.MaxPollRecords = DefaultMaxPollRecords
	}
	if opts.MaxPollRecords < 0 {
		return nil, fmt.Errorf("%s: maxPollRecords must be above 0", prefix)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = storeTimeout
	}
	runner, err := source.New(source.Options{Receiver: opts.Receiver, System: "kafka", MinBackoff: opts.MinBackoff,
		MaxBackoff: opts.MaxBackoff, DrainTimeout: opts.DrainTimeout, StoreTimeout: storeTimeout})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	c := &Consumer{opts: opts, source: name, runner: runner}
	c.log = opts.Logger.With("source", name, "group", opts.GroupID)
	c.errs = newErrorLog(c.log, "kafka consumer")
	c.redactor = opts.Redactor.With(opts.Conn.secrets()...)
	return c, nil
}

// Name is the component and health name: kafka.<source>.
func (c *Consumer) Name() string { return "kafka." + c.source }

// Check is the health check of the source: up once the consumer joined
// its group, and while a broker answers. While librdkafka reports every
// broker down, Check asks for the cluster metadata (at most 2 s) and is up
// again when it gets it.
func (c *Consumer) Check(context.Context) error {
	kc := c.consumer.Load()
	switch {
	case kc == nil:
		return errors.New("not started")
	case !c.joined.Load():
		return errors.New("not yet a member of the consumer group " + c.opts.GroupID)
	case c.down.Load():
		if _, err := kc.GetMetadata(nil, false, int(probeTimeout/time.Millisecond)); err != nil {
			return errors.New("no kafka broker answers: " + c.redactor.Redact(err.Error()))
		}
		c.down.Store(false)
	}
	return nil
}

// consumerConfig is the librdkafka configuration of the consumer: no
// automatic commit and no automatic offset store, since the consumer
// commits itself after the store.
func (c *Consumer) consumerConfig() *ckafka.ConfigMap {
	m := c.opts.Conn.configMap("queuebox-source-" + c.source)
	m["group.id"] = c.opts.GroupID
	m["enable.auto.commit"] = false
	m["enable.auto.offset.store"] = false
	m["auto.offset.reset"] = c.opts.AutoOffsetReset
	if n := c.opts.MaxMessageBytes; n > 0 {
		m["max.partition.fetch.bytes"] = int(min(n, maxFetchBytes))
		m["queued.max.messages.kbytes"] = int(max(1024, min(int64(c.opts.MaxPollRecords)*n/1024, defaultQueuedKB)))
	}
	return &m
}

// The bounds of the fetch settings that MaxMessageBytes sets:
// librdkafka's largest max.partition.fetch.bytes and its default
// queued.max.messages.kbytes.
const (
	maxFetchBytes   = 1_000_000_000
	defaultQueuedKB = 65536
)

// Run joins the group and consumes until ctx ends, then stores and
// commits the batch whose store began, leaves the group and returns nil. It
// returns an error only when the consumer cannot be created or subscribed;
// librdkafka retries lost brokers and connections itself.
func (c *Consumer) Run(ctx context.Context) error {
	kc, err := ckafka.NewConsumer(c.consumerConfig())
	if err != nil {
		return fmt.Errorf("sources.%s: %s", c.source, c.redactor.Redact(err.Error()))
	}
	c.consumer.Store(kc)
	logsDone := make(chan struct{})
	go c.serveLogs(kc.Logs(), logsDone)
	defer func() {
		c.joined.Store(false)
		if err := kc.Close(); err != nil {
			c.log.Warn("kafka consumer close", "err", c.redactor.Redact(err.Error()))
		}
		<-logsDone
	}()
	if err := kc.SubscribeTopics(c.opts.Topics, c.rebalance); err != nil {
		return fmt.Errorf("sources.%s: subscribe to %s: %s", c.source, strings.Join(c.opts.Topics, ", "),
			c.redactor.Redact(err.Error()))
	}
	c.log.Info("kafka source subscribed", "topics", c.opts.Topics)
	for ctx.Err() == nil {
		b := c.collect(ctx, kc)
		if retryIn := c.process(ctx, kc, b); retryIn > 0 && !backoff.Sleep(ctx, retryIn) {
			break
		}
	}
	return nil
}

// serveLogs logs librdkafka's log lines at debug level until the channel
// closes.
func (c *Consumer) serveLogs(logs chan ckafka.LogEvent, done chan struct{}) {
	defer close(done)
	for l := range logs {
		c.log.Debug("librdkafka", "level", l.Level, "tag", l.Tag, "msg", c.redactor.Redact(l.Message))
	}
}

// rebalance runs inside Poll. An assignment marks the consumer joined; a
// revocation drops the revoked partitions' records from the batch being
// collected: none of them is stored yet, and the next owner reads them
// from the committed offset.
func (c *Consumer) rebalance(_ *ckafka.Consumer, ev ckafka.Event) error {
	switch e := ev.(type) {
	case ckafka.AssignedPartitions:
		c.joined.Store(true)
		c.log.Info("kafka partitions assigned", "partitions", describe(e.Partitions))
	case ckafka.RevokedPartitions:
		if c.batch != nil {
			c.batch.drop(e.Partitions)
		}
		c.log.Info("kafka partitions revoked", "partitions", describe(e.Partitions))
	}
	return nil
}

func describe(tps []ckafka.TopicPartition) string {
	parts := make([]string, 0, len(tps))
	for _, tp := range tps {
		parts = append(parts, fmt.Sprintf("%s[%d]", topicOf(tp), tp.Partition))
	}
	return strings.Join(parts, " ")
}

func topicOf(tp ckafka.TopicPartition) string {
	if tp.Topic == nil {
		return ""
	}
	return *tp.Topic
}
