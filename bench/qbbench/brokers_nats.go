package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsSeq numbers the streams of this process.
var natsSeq atomic.Int64

// natsDurable is the durable consumer name of the ingest source.
const natsDurable = "qbbench-ingest"

// jetStreamTarget is a file-storage stream on <prefix>.>, named for this
// process and measurement.
type jetStreamTarget struct {
	url, stream, prefix string
	nc                  *gonats.Conn
	js                  jetstream.JetStream
}

func newJetStreamTarget(ctx context.Context, tag string) (target, error) {
	url := *brokerNATSURL
	nc, err := gonats.Connect(url, gonats.Name("qbbench"), gonats.Timeout(10*time.Second))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS (make services starts it): %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	seq := fmt.Sprintf("%d_%s_%d", os.Getpid(), tag, natsSeq.Add(1))
	t := &jetStreamTarget{url: url, stream: "QBBENCH_" + seq, prefix: "qbbench." + seq, nc: nc, js: js}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = js.CreateStream(cctx, jetstream.StreamConfig{
		Name: t.stream, Subjects: []string{t.prefix + ".>"}, Storage: jetstream.FileStorage,
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("create stream %s: %w", t.stream, err)
	}
	return t, nil
}

// destinationEnv is the destination "broker": JetStream publishes (the
// default) to <prefix>.<topic>, which the stream holds.
func (t *jetStreamTarget) destinationEnv() map[string]string {
	return map[string]string{
		"QUEUEBOX_DESTINATIONS_BROKER_TYPE":      "nats",
		"QUEUEBOX_DESTINATIONS_BROKER_SERVERS":   t.url,
		"QUEUEBOX_DESTINATIONS_BROKER_SUBJECT":   t.prefix + ".{{ topic }}",
		"QUEUEBOX_DESTINATIONS_BROKER_JETSTREAM": "true",
	}
}

// sourceEnv is the source "bench" on the stream through a durable of its
// own, with the default batchSize (100) and ackWaitMs.
func (t *jetStreamTarget) sourceEnv() map[string]string {
	return map[string]string{
		"QUEUEBOX_SOURCES_BENCH_TYPE":               "nats",
		"QUEUEBOX_SOURCES_BENCH_SERVERS":            t.url,
		"QUEUEBOX_SOURCES_BENCH_STREAM":             t.stream,
		"QUEUEBOX_SOURCES_BENCH_DURABLE":            natsDurable,
		"QUEUEBOX_SOURCES_BENCH_FILTERSUBJECT":      t.prefix + ".>",
		"QUEUEBOX_SOURCES_BENCH_IDEMPOTENCYKEYPATH": "$.id",
		"QUEUEBOX_SOURCES_BENCH_EVENTTYPEPATH":      "$.type",
		"QUEUEBOX_SOURCES_BENCH_AGGREGATEIDPATH":    "$.customer",
		"QUEUEBOX_SOURCES_BENCH_TOPIC":              "bench.{{ eventType }}",
	}
}

// publish sends to <prefix>.<topic> through JetStream on one connection,
// each goroutine waiting for the stream's ack of its message before it
// sends the next, with the headers the destination sets (x-message-id,
// x-topic, x-attempt).
func (t *jetStreamTarget) publish(ctx context.Context, n, conc int, msg func(i int) rawMessage) error {
	return publishAll(ctx, n, conc, func(ctx context.Context, i int) error {
		m := msg(i)
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := t.js.PublishMsg(pctx, &gonats.Msg{
			Subject: t.prefix + "." + m.Topic, Data: m.Body,
			Header: gonats.Header{"x-message-id": {m.ID}, "x-topic": {m.Topic}, "x-attempt": {strconv.Itoa(1)}},
		})
		return err
	})
}

// stored is the number of messages in the stream.
func (t *jetStreamTarget) stored(ctx context.Context) (int64, error) {
	s, err := t.js.Stream(ctx, t.stream)
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return int64(info.State.Msgs), nil
}

// firstBody reads the stream's first message.
func (t *jetStreamTarget) firstBody(ctx context.Context) ([]byte, error) {
	s, err := t.js.Stream(ctx, t.stream)
	if err != nil {
		return nil, err
	}
	m, err := s.GetMsg(ctx, 1)
	if err != nil {
		return nil, fmt.Errorf("get message 1 of stream %s: %w", t.stream, err)
	}
	return m.Data, nil
}

// settled checks, once queuebox-ingest stopped, that its durable has no
// message pending and none awaiting an acknowledgement.
func (t *jetStreamTarget) settled(ctx context.Context) error {
	c, err := t.js.Consumer(ctx, t.stream, natsDurable)
	if err != nil {
		return fmt.Errorf("look up the durable %s: %w", natsDurable, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return err
	}
	if info.NumPending != 0 || info.NumAckPending != 0 {
		return fmt.Errorf("durable %s: %d messages pending, %d awaiting an ack", natsDurable, info.NumPending, info.NumAckPending)
	}
	return nil
}

// close deletes the stream (with its durable) and closes the connection.
func (t *jetStreamTarget) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := t.js.DeleteStream(ctx, t.stream); err != nil {
		logf("warning: delete stream %s: %v", t.stream, err)
	}
	t.nc.Close()
}
