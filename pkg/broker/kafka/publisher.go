package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/broker/failure"
	"github.com/alternayte/queuebox/pkg/netguard"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// Defaults that New applies to zero fields of Options.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultKeyTemplate = "{{ key }}"
)

// probeTimeout bounds the metadata request that checks, while every broker
// is down, whether one answers again.
const probeTimeout = 2 * time.Second

// ErrClosed reports a Publish after Close.
var ErrClosed = errors.New("kafka destination: publisher is closed")

// Options configure one Kafka destination. They mirror the destination
// block of the configuration, so this package needs no configuration
// package.
type Options struct {
	// Name is the destination name; errors and logs carry it.
	Name string
	Conn
	// Topic is the Kafka topic or its address template; TopicFrom, when
	// set, names the column (aggregate_type, topic or key) that holds the
	// topic instead, and wins.
	Topic, TopicFrom string
	// KeyTemplate renders the record key when the route sets no
	// routingKeyTemplate: {{ key }} and {{ topic }} only. Default
	// {{ key }}. An empty result sends no key.
	KeyTemplate string
	// Timeout is the whole budget of one publish, up to the delivery
	// report: librdkafka's message.timeout.ms, and the longest Publish
	// waits. Default 30 s. The configuration asks for at least 2 s; New
	// takes any positive value, so tests can stall a broker briefly.
	Timeout time.Duration
	// Headers are the static headers of every record.
	Headers map[string]string
	// BlockPrivateAddresses refuses a cluster on a loopback, private,
	// link-local, carrier-grade NAT, NAT64 or IPv4-mapped inside address
	// (package netguard, http.blockPrivateAddresses). librdkafka dials on
	// its own, so the check resolves names itself: New fails when a
	// bootstrap server resolves inside (librdkafka would connect to it at
	// once), and before a record is handed over, Publish resolves the
	// bootstrap servers and every broker that the cluster's metadata
	// lists (at most every 10 s) and fails with an error that matches
	// queuebox.ErrUndeliverable when one is inside. A host that Go
	// cannot resolve counts as inside, and a legacy IPv4 spelling (127.1)
	// as the address it spells (netguard.CheckHost). A connection that
	// librdkafka opens between two checks is not seen.
	BlockPrivateAddresses bool
	// Lookup resolves broker names for BlockPrivateAddresses; nil uses
	// the system resolver. Tests pass their own.
	Lookup netguard.Lookup
	// Redactor knows the secrets of the whole configuration; the
	// publisher adds its own credentials. May be nil.
	Redactor *redact.Redactor
	// Logger receives librdkafka's errors and log lines. May be nil.
	Logger *slog.Logger
}

// Publisher produces outbox messages to one Kafka destination through one
// idempotent librdkafka producer. It is safe for concurrent use.
type Publisher struct {
	opts     Options
	topic    address.Template
	key      address.Key
	redactor *redact.Redactor
	log      *slog.Logger
	producer *ckafka.Producer
	guard    *brokerGuard // nil unless Options.BlockPrivateAddresses

	// mu orders Produce calls before Close: Produce holds it shared, Close
	// exclusively, so no Produce reaches a destroyed producer.
	mu     sync.RWMutex
	closed atomic.Bool
	done   chan struct{}
	once   sync.Once
	events sync.WaitGroup

	// down is closed while librdkafka reports every broker down; a fresh
	// one replaces it once a broker answers again.
	downMu sync.Mutex
	down   chan struct{}
	isDown bool

	// errs logs the error events of librdkafka, throttled.
	errs *errorLog
}

var _ queuebox.Publisher = (*Publisher)(nil)

var keyPlaceholder = regexp.MustCompile(`\{\{\s*([^}]*?)\s*\}\}`)

// New validates opts, applies the defaults and starts the producer. It
// does not wait for a broker: librdkafka connects in the background, and
// each Publish fails while no broker answers. The caller closes the
// publisher.
func New(opts Options) (*Publisher, error) {
	prefix := destPrefix(opts.Name)
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("%s: timeout must be above 0", prefix)
	}
	if opts.KeyTemplate == "" {
		opts.KeyTemplate = DefaultKeyTemplate
	}
	for _, m := range keyPlaceholder.FindAllStringSubmatch(opts.KeyTemplate, -1) {
		if m[1] != "key" && m[1] != "topic" {
			return nil, fmt.Errorf("%s: keyTemplate: {{ %s }} is not {{ key }} or {{ topic }}", prefix, m[1])
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := opts.Conn.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	what := "destinations." + opts.Name + ".topic"
	if opts.TopicFrom != "" {
		what = "destinations." + opts.Name + ".topicFrom"
	}
	topic, err := address.New(what, opts.Topic, opts.TopicFrom)
	if err != nil {
		return nil, err
	}
	p := &Publisher{
		opts: opts, topic: topic, key: address.NewKey(opts.KeyTemplate),
		redactor: opts.Redactor.With(opts.Conn.secrets()...), log: opts.Logger,
		done: make(chan struct{}), down: make(chan struct{}),
	}
	p.errs = newErrorLog(p.log, "kafka producer")
	if opts.BlockPrivateAddresses {
		p.guard = &brokerGuard{destination: prefix, bootstrap: opts.Conn.servers(), lookup: opts.Lookup, now: time.Now}
		if p.guard.lookup == nil {
			p.guard.lookup = netguard.SystemLookup
		}
		if blocked := p.guard.first(p.guard.bootstrap); blocked != nil {
			return nil, blocked
		}
	}
	p.producer, err = ckafka.NewProducer(p.producerConfig())
	if err != nil {
		return nil, fmt.Errorf("%s: %s", prefix, p.redactor.Redact(err.Error()))
	}
	p.events.Add(1)
	go p.serveEvents()
	return p, nil
}

// producerConfig is the librdkafka configuration of the producer: acks
// from every in-sync replica and idempotence, so a retry inside
// librdkafka never writes a record twice, and the publish budget as the
// message timeout. linger.ms is 0: every publish waits for its own
// delivery report, so a linger only delays it (with 16 publishes in
// flight and 5 ms, a destination topped out near 3,200 records/s), and
// the records queued while a request is in flight still go out together.
func (p *Publisher) producerConfig() *ckafka.ConfigMap {
	m := p.opts.Conn.configMap("queuebox-destination-" + p.opts.Name)
	ms := max(int(p.opts.Timeout/time.Millisecond), 1)
	m["acks"] = "all"
	m["enable.idempotence"] = true
	m["message.timeout.ms"] = ms
	m["linger.ms"] = 0
	m["go.delivery.reports"] = true
	return &m
}

// Publish produces d.Body to the rendered topic and returns nil only once
// the delivery report says the record is stored with acks=all. A topic
// that renders empty, a produce error, every broker down and the timeout
// return an *Error. A rendered topic that Kafka keeps for itself or would
// refuse (__consumer_offsets, a character outside [a-zA-Z0-9._-]:
// address.Check) is never produced to, and neither is a cluster that
// Options.BlockPrivateAddresses refuses: Publish returns a
// *queuebox.UndeliverableError and the row goes dead. Publish also returns when ctx ends, with an error that
// wraps ctx.Err(). After an error the record may still be stored later
// (at least once): librdkafka keeps trying it until its message timeout.
func (p *Publisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	if p.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return p.fail(ctx, "", err)
	}
	if d.Message == nil {
		return errors.New("kafka destination: delivery without a message")
	}
	topic, err := p.topic.Render(d.Message)
	if err != nil {
		return p.fail(ctx, "", err)
	}
	if err := p.topic.Refuse(address.KafkaTopic, topic, destPrefix(p.opts.Name), "topic"); err != nil {
		return err
	}
	msg := &ckafka.Message{
		TopicPartition: ckafka.TopicPartition{Topic: &topic, Partition: ckafka.PartitionAny},
		Value:          d.Body, Headers: buildHeaders(d.Message, p.opts.Headers),
	}
	if key := address.RoutingKey(d, p.key); key != "" {
		msg.Key = []byte(key)
	}
	if err := p.checkAddresses(); err != nil {
		return err
	}
	down, err := p.reachable()
	if err != nil {
		return p.fail(ctx, topic, err)
	}
	report := make(chan ckafka.Event, 1)
	if err := p.produce(msg, report); err != nil {
		return p.fail(ctx, topic, err)
	}
	timer := time.NewTimer(p.opts.Timeout)
	defer timer.Stop()
	select {
	case ev := <-report:
		if m, ok := ev.(*ckafka.Message); ok && m.TopicPartition.Error != nil {
			return p.fail(ctx, topic, m.TopicPartition.Error)
		}
		p.errs.ok()
		return nil
	case <-ctx.Done():
		return p.fail(ctx, topic, ctx.Err())
	case <-timer.C:
		return p.fail(ctx, topic, errTimeout)
	case <-p.done:
		return p.fail(ctx, topic, ErrClosed)
	case <-down:
		return p.fail(ctx, topic, errors.New("every kafka broker is down"))
	}
}

// checkAddresses returns the *queuebox.UndeliverableError of a cluster
// with a broker on an inside address (Options.BlockPrivateAddresses), or
// nil.
func (p *Publisher) checkAddresses() error {
	if p.guard == nil {
		return nil
	}
	blocked := p.guard.check(func() (*ckafka.Metadata, error) {
		p.mu.RLock()
		defer p.mu.RUnlock()
		if p.closed.Load() {
			return nil, ErrClosed
		}
		return p.producer.GetMetadata(nil, false, int(probeTimeout/time.Millisecond))
	})
	if blocked == nil {
		return nil
	}
	return failure.Blocked("kafka", p.opts.Name, blocked)
}

// produce hands msg to librdkafka unless the publisher is closed.
func (p *Publisher) produce(msg *ckafka.Message, report chan ckafka.Event) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed.Load() {
		return ErrClosed
	}
	return p.producer.Produce(msg, report)
}

// reachable returns the channel that closes when every broker goes down.
// While every broker is down, it first asks the cluster for its metadata:
// an answer clears the state, no answer fails the publish at once instead
// of queueing a record that no broker takes.
func (p *Publisher) reachable() (<-chan struct{}, error) {
	p.downMu.Lock()
	down, isDown := p.down, p.isDown
	p.downMu.Unlock()
	if !isDown {
		return down, nil
	}
	p.mu.RLock()
	var err error
	if p.closed.Load() {
		err = ErrClosed
	} else {
		_, err = p.producer.GetMetadata(nil, false, int(probeTimeout/time.Millisecond))
	}
	p.mu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("no kafka broker answers: %w", err)
	}
	p.downMu.Lock()
	defer p.downMu.Unlock()
	if p.down == down {
		p.down, p.isDown = make(chan struct{}), false
	}
	return p.down, nil
}

func (p *Publisher) setDown() {
	p.downMu.Lock()
	defer p.downMu.Unlock()
	if !p.isDown {
		p.isDown = true
		close(p.down)
	}
}

// serveEvents drains the producer's events and log lines until Close
// closes both channels. It logs errors, redacted and throttled (errorLog).
func (p *Publisher) serveEvents() {
	defer p.events.Done()
	events, logs := p.producer.Events(), p.producer.Logs()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for events != nil || logs != nil {
		select {
		case <-ticker.C:
			p.errs.tick()
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if e, isErr := ev.(ckafka.Error); isErr {
				if e.Code() == ckafka.ErrAllBrokersDown {
					p.setDown()
				}
				p.errs.failed(p.redactor.Redact(e.Error()))
			}
		case l, ok := <-logs:
			if !ok {
				logs = nil
				continue
			}
			p.log.Debug("librdkafka", "level", l.Level, "tag", l.Tag, "msg", p.redactor.Redact(l.Message))
		}
	}
}

// Close stops the producer. Records that librdkafka still holds are
// purged, and a publish in flight returns an error; Publish calls that
// follow return ErrClosed. Close is idempotent and always returns nil.
func (p *Publisher) Close() error {
	p.once.Do(func() {
		p.mu.Lock()
		p.closed.Store(true)
		p.mu.Unlock()
		close(p.done)
		_ = p.producer.Purge(ckafka.PurgeQueue | ckafka.PurgeInFlight | ckafka.PurgeNonBlocking)
		p.producer.Close()
		p.events.Wait()
	})
	return nil
}
