package kafka

import (
	"context"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/source"
)

// partition names one partition of one topic.
type partition struct {
	topic string
	id    int32
}

func partitionOf(tp ckafka.TopicPartition) partition {
	return partition{topic: topicOf(tp), id: tp.Partition}
}

// batch holds the records of one poll, by partition, in offset order.
type batch struct {
	order   []partition
	records map[partition][]*ckafka.Message
	n       int
}

func (b *batch) add(m *ckafka.Message) {
	p := partitionOf(m.TopicPartition)
	if _, ok := b.records[p]; !ok {
		b.order = append(b.order, p)
	}
	b.records[p] = append(b.records[p], m)
	b.n++
}

// drop forgets the records of the revoked partitions.
func (b *batch) drop(tps []ckafka.TopicPartition) {
	for _, tp := range tps {
		p := partitionOf(tp)
		b.n -= len(b.records[p])
		delete(b.records, p)
	}
}

// collect polls one batch: it waits up to pollWait for the first record,
// then takes the records that are already there, up to MaxPollRecords.
func (c *Consumer) collect(ctx context.Context, kc *ckafka.Consumer) *batch {
	b := &batch{records: map[partition][]*ckafka.Message{}}
	c.batch = b
	defer func() { c.batch = nil }()
	timeout := int(pollWait / time.Millisecond)
	for b.n < c.opts.MaxPollRecords && ctx.Err() == nil {
		ev := kc.Poll(timeout)
		c.errs.tick()
		if ev == nil {
			if b.n > 0 || timeout == 0 {
				return b
			}
			continue
		}
		if m := c.handle(ev); m != nil {
			b.add(m)
			timeout = 0
		}
	}
	return b
}

// handle takes one event of Poll: it returns a record to store, or nil
// after it noted an error (through errs, which logs a state change and a
// periodic summary rather than every event).
func (c *Consumer) handle(ev ckafka.Event) *ckafka.Message {
	switch e := ev.(type) {
	case *ckafka.Message:
		if e.TopicPartition.Error != nil {
			c.errs.failed("fetch: " + c.redactor.Redact(e.TopicPartition.Error.Error()))
			return nil
		}
		c.errs.ok()
		return e
	case ckafka.Error:
		if e.Code() == ckafka.ErrAllBrokersDown {
			c.down.Store(true)
		}
		c.errs.failed(c.redactor.Redact(e.Error()))
	}
	return nil
}

// process stores the records of b, the poll's group, in one ReceiveBatch
// (each partition's records in offset order) and then commits, per
// partition, the offset after its last record. After a failed store it
// seeks each partition back to its first record of the group, so the
// group is read again, and returns the backoff before the next batch;
// else zero. A group whose store has not begun when ctx ends is left
// uncommitted, for the next owner to read.
func (c *Consumer) process(ctx context.Context, kc *ckafka.Consumer, b *batch) time.Duration {
	var records []*ckafka.Message
	for _, p := range b.order {
		records = append(records, b.records[p]...)
	}
	if len(records) == 0 || ctx.Err() != nil {
		return 0
	}
	msgs := make([]ingest.Message, len(records))
	answers := make([]source.Answer, len(records))
	for i, m := range records {
		headers := receivedHeaders(m.Headers)
		key := ""
		if len(m.Key) > 0 {
			key = text(m.Key)
		}
		msgs[i] = ingest.Message{Body: m.Value, Headers: headers, CorrelationID: headers["x-correlation-id"],
			Broker: ingest.BrokerAttributes{MessageID: key, RecordKey: key}}
		answers[i] = record{}
	}
	res := c.runner.HandleBatch(ctx, msgs, answers)
	if !res.Settled {
		for _, p := range b.order {
			if rs := b.records[p]; len(rs) > 0 {
				c.seek(kc, rs[0].TopicPartition)
			}
		}
		return res.RetryIn
	}
	commits := make([]ckafka.TopicPartition, 0, len(b.order))
	for _, p := range b.order {
		if rs := b.records[p]; len(rs) > 0 {
			topic := p.topic
			commits = append(commits, ckafka.TopicPartition{Topic: &topic, Partition: p.id,
				Offset: rs[len(rs)-1].TopicPartition.Offset + 1})
		}
	}
	c.commit(kc, commits)
	return 0
}

// record is the source.Answer of one record. Kafka has no answer per
// record: every decision, Rejected too, is final and left to the commit
// of the group's offsets, and a failed group is read again by process's
// seek of each partition to its first record.
type record struct{}

func (record) Ack(ingest.Decision)                {}
func (record) Term(ingest.Decision)               {}
func (record) Nak(context.Context, time.Duration) {}

func (c *Consumer) seek(kc *ckafka.Consumer, tp ckafka.TopicPartition) {
	if err := kc.Seek(tp, 0); err != nil {
		// The partition may have been revoked; its next owner starts at
		// the committed offset, which is not past this record.
		c.log.Warn("kafka seek back failed", "topic", topicOf(tp), "partition", tp.Partition,
			"offset", int64(tp.Offset), "err", c.redactor.Redact(err.Error()))
	}
}

// commit commits the offsets synchronously. A failed commit is logged
// only: the records are stored, and a replay finds them as duplicates.
func (c *Consumer) commit(kc *ckafka.Consumer, offsets []ckafka.TopicPartition) {
	if len(offsets) == 0 {
		return
	}
	if _, err := kc.CommitOffsets(offsets); err != nil {
		c.log.Warn("kafka offset commit failed; the records are read again as duplicates",
			"partitions", describe(offsets), "err", c.redactor.Redact(err.Error()))
	}
}
