package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/source"
)

// Defaults that NewConsumer applies to zero fields of ConsumerOptions.
const (
	DefaultAckWait   = 30 * time.Second
	DefaultBatchSize = 100
)

// Receiver stores one received message: ingest.Receiver. Its Name is the
// source name.
type Receiver = source.Receiver

// ConsumerOptions configure the consumer of one NATS source.
type ConsumerOptions struct {
	Conn
	// Stream is the JetStream stream to read; it must exist.
	Stream string
	// Durable names the durable pull consumer; replicas with one name
	// share the work. The consumer creates it, or updates it to these
	// options.
	Durable string
	// FilterSubject limits the consumer to matching subjects; empty reads
	// every subject of the stream.
	FilterSubject string
	// AckWait is how long JetStream waits for an acknowledgement before it
	// redelivers. Default 30 s.
	AckWait time.Duration
	// BatchSize is the most messages pulled ahead of the store, and so
	// of one group stored in one ReceiveBatch. Default 100.
	BatchSize int
	// Receiver stores each message; its Name is the source name. Required.
	Receiver Receiver
	// Redactor knows the secrets of the whole configuration; the consumer
	// adds its own credentials. May be nil.
	Redactor *redact.Redactor
	// Logger receives the connection and consumer state changes, store
	// failures and acknowledgements that failed. May be nil.
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the wait before a new bind, which
	// doubles after each failure, and the wait before the next pull
	// after a failed store, which doubles with each failure in a row.
	// Defaults 1 s and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// DrainTimeout bounds the store of the group in hand after Run's ctx
	// ended; AckWait bounds every store. Default AckWait.
	DrainTimeout time.Duration
}

// Consumer reads one NATS source into the inbox: a run.Component. It
// pulls up to BatchSize messages ahead and stores them through its
// Receiver in groups, in stream order (a group is what has arrived so far,
// at most BatchSize, in one ReceiveBatch), and acknowledges a message only
// after its group's store returned: Stored, Duplicate, Filtered and Dead
// are acknowledged, Rejected is terminated, and every message of a group
// whose store failed is negatively acknowledged, so JetStream returns it
// at once; the consumer gives back what else it holds and waits
// (MinBackoff … MaxBackoff) before it pulls again. A stop gives back what
// was pulled but not stored the same way. A message whose acknowledgement
// is lost comes back after AckWait and is a duplicate.
type Consumer struct {
	opts     ConsumerOptions
	source   string
	log      *slog.Logger
	redactor *redact.Redactor
	runner   *source.Runner

	nc        atomic.Pointer[gonats.Conn]
	ready     atomic.Bool
	lastErr   atomic.Pointer[string]
	reconnect chan struct{}
}

// NewConsumer validates opts and applies the defaults. It does not
// connect; Run does.
func NewConsumer(opts ConsumerOptions) (*Consumer, error) {
	if opts.Receiver == nil {
		return nil, errors.New("nats source: ConsumerOptions.Receiver is required")
	}
	name := opts.Receiver.Name()
	prefix := "sources." + name
	if err := opts.Conn.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	if strings.TrimSpace(opts.Stream) == "" || strings.TrimSpace(opts.Durable) == "" {
		return nil, fmt.Errorf("%s: stream and durable are required", prefix)
	}
	if opts.AckWait == 0 {
		opts.AckWait = DefaultAckWait
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.AckWait < 0 || opts.BatchSize < 0 {
		return nil, fmt.Errorf("%s: ackWaitMs and batchSize must be above 0", prefix)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = opts.AckWait
	}
	// The group in hand finishes even when the process stops: a store
	// that commits and then gets its ack beats a nak of a row that may
	// already be written. AckWait bounds it, as JetStream would.
	runner, err := source.New(source.Options{Receiver: opts.Receiver, System: "nats", MinBackoff: opts.MinBackoff,
		MaxBackoff: opts.MaxBackoff, DrainTimeout: opts.DrainTimeout, StoreTimeout: opts.AckWait})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	c := &Consumer{opts: opts, source: name, runner: runner,
		reconnect: make(chan struct{}, 1)}
	c.log = opts.Logger.With("source", name, "stream", opts.Stream, "durable", opts.Durable)
	c.redactor = opts.Redactor.With(opts.Conn.secrets()...)
	c.setErr("not started")
	return c, nil
}

// Name is the component and health name: nats.<source>.
func (c *Consumer) Name() string { return "nats." + c.source }

// Check is the health check of the source: up while the connection is up
// and the durable consumer is bound.
func (c *Consumer) Check(context.Context) error {
	nc := c.nc.Load()
	switch {
	case nc == nil || !nc.IsConnected():
		return errors.New("not connected to a nats server")
	case !c.ready.Load():
		return errors.New(*c.lastErr.Load())
	}
	return nil
}

func (c *Consumer) setErr(text string) { c.lastErr.Store(&text) }

// Run connects and consumes until ctx ends, then returns nil after the
// group in hand is stored and answered. A stream that does not exist
// (QueueBox never creates one), at start or later, stops only this
// source: Check reports it with the stream's name, and the source tries
// again with the backoff of every other failure (no server, a lost
// connection, a consumer that was deleted): MinBackoff … MaxBackoff.
func (c *Consumer) Run(ctx context.Context) error {
	nc, err := c.opts.Conn.dial("queuebox source "+c.source, c.log, c.redactor,
		gonats.ReconnectHandler(func(*gonats.Conn) {
			c.log.Info("nats connection restored")
			select {
			case c.reconnect <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		return fmt.Errorf("sources.%s: %w", c.source, err)
	}
	c.nc.Store(nc)
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("sources.%s: %w", c.source, err)
	}
	return source.Reconnect{
		Session: func(ctx context.Context) (bool, error) { return c.session(ctx, js) },
		Failed: func(err error, retryIn time.Duration) error {
			text := c.redactor.Redact(err.Error())
			// A missing stream stops this source, not the process: the
			// operator creates it (QueueBox never does) and the source
			// binds at its next try.
			if errors.Is(err, errStreamMissing) {
				text = fmt.Sprintf("sources.%s.stream: %s", c.source, text)
				c.setErr(text)
				c.log.Error("nats source stopped: its stream does not exist; retrying", "err", text,
					"setting", "sources."+c.source+".stream", "retry_in", retryIn.String())
				return nil
			}
			c.setErr(text)
			c.log.Warn("nats source paused; retrying", "err", text, "retry_in", retryIn.String())
			return nil
		},
		MinBackoff: c.opts.MinBackoff, MaxBackoff: c.opts.MaxBackoff, Wake: c.reconnect,
	}.Run(ctx)
}

// session binds the durable consumer and consumes until ctx ends or the
// consumer fails; it reports whether it got to consume.
func (c *Consumer) session(ctx context.Context, js jetstream.JetStream) (bool, error) {
	cons, err := c.bind(ctx, js)
	if err != nil {
		return false, err
	}
	c.ready.Store(true)
	c.log.Info("nats source consuming")
	err = c.consume(ctx, cons)
	c.ready.Store(false)
	return true, err
}

// errStreamMissing marks a missing stream, the failure that the source
// reports with the setting that names the stream.
var errStreamMissing = errors.New("stream missing")

// bind looks the stream up and creates or updates the durable consumer.
func (c *Consumer) bind(ctx context.Context, js jetstream.JetStream) (jetstream.Consumer, error) {
	bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stream, err := js.Stream(bctx, c.opts.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("%w: the JetStream stream %q does not exist; create it (QueueBox never creates a stream), and the source binds at its next try",
			errStreamMissing, c.opts.Stream)
	}
	if err != nil {
		return nil, fmt.Errorf("look up the stream %q: %w", c.opts.Stream, err)
	}
	cons, err := stream.CreateOrUpdateConsumer(bctx, jetstream.ConsumerConfig{
		Durable: c.opts.Durable, AckPolicy: jetstream.AckExplicitPolicy, AckWait: c.opts.AckWait,
		FilterSubject: c.opts.FilterSubject, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("create or update the durable consumer %q on stream %q: %w", c.opts.Durable, c.opts.Stream, err)
	}
	return cons, nil
}
