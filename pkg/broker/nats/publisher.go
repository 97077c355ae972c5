package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/broker/failure"
	"github.com/alternayte/queuebox/pkg/netguard"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// DefaultTimeout bounds one publish when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// ErrClosed reports a Publish after Close.
var ErrClosed = errors.New("nats destination: publisher is closed")

// Options configure one NATS destination. They mirror the destination
// block of the configuration, so this package needs no configuration
// package.
type Options struct {
	// Name is the destination name; errors and logs carry it.
	Name string
	Conn
	// Subject is the subject or its address template; SubjectFrom, when
	// set, names the column (aggregate_type, topic or key) that holds the
	// subject instead, and wins.
	Subject, SubjectFrom string
	// Core publishes on core NATS, with no acknowledgement (jetStream:
	// false). The default publishes through JetStream and waits for the
	// stream's acknowledgement.
	Core bool
	// Timeout bounds one publish: the wait for the JetStream
	// acknowledgement, or for the flush on core NATS. Default 30 s.
	Timeout time.Duration
	// Headers are the static headers of every message.
	Headers map[string]string
	// BlockPrivateAddresses refuses, in the dialer, every connection to a
	// loopback, private, link-local, carrier-grade NAT, NAT64 or
	// IPv4-mapped inside address (package netguard), whatever a server URL
	// resolved to, and a server that the cluster announces
	// (http.blockPrivateAddresses). While the last connect was refused, a
	// publish fails with an error that matches queuebox.ErrUndeliverable.
	BlockPrivateAddresses bool
	// Redactor knows the secrets of the whole configuration; the
	// publisher adds its own credentials. May be nil.
	Redactor *redact.Redactor
	// Logger receives the connection state changes. May be nil.
	Logger *slog.Logger
}

// Publisher publishes outbox messages to one NATS destination over one
// connection. It is safe for concurrent use.
type Publisher struct {
	opts     Options
	subject  address.Template
	nc       *gonats.Conn
	js       jetstream.JetStream
	redactor *redact.Redactor
	guard    *netguard.Dialer // nil unless Options.BlockPrivateAddresses
	closed   atomic.Bool
}

var _ queuebox.Publisher = (*Publisher)(nil)

// New validates opts, applies the defaults and connects. When no server
// answers yet, New still returns the publisher: the client keeps
// connecting in the background (1 s, 2 s … 30 s apart) and each Publish
// fails until it is connected. The caller closes the publisher.
func New(opts Options) (*Publisher, error) {
	prefix := destPrefix(opts.Name)
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("%s: timeout must be above 0", prefix)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := opts.Conn.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	if err := checkHeaders("static header", opts.Headers); err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	what := "destinations." + opts.Name + ".subject"
	if opts.SubjectFrom != "" {
		what = "destinations." + opts.Name + ".subjectFrom"
	}
	subject, err := address.New(what, opts.Subject, opts.SubjectFrom)
	if err != nil {
		return nil, err
	}
	p := &Publisher{opts: opts, subject: subject, redactor: opts.Redactor.With(opts.Conn.secrets()...)}
	// No reconnect buffer: a publish while the connection is down fails at
	// once instead of waiting in a buffer for a server that may not come
	// back before the timeout; the row takes the retry path.
	extra := []gonats.Option{gonats.ReconnectBufSize(-1)}
	if opts.BlockPrivateAddresses {
		// The client's own connect timeout stays the bound of one dial.
		p.guard = netguard.NewDialer(prefix, connectTimeout)
		extra = append(extra, gonats.SetCustomDialer(p.guard))
	}
	p.nc, err = opts.Conn.dial("queuebox destination "+opts.Name, opts.Logger, p.redactor, extra...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	if p.js, err = jetstream.New(p.nc); err != nil {
		p.nc.Close()
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	return p, nil
}

// Publish sends d.Body to the rendered subject and returns nil only once
// the destination took it: the JetStream acknowledgement of the stream
// that holds the subject, or, on core NATS, the flush that says the
// server read it. A subject that no stream holds, an error
// acknowledgement, a dropped connection and the timeout return an
// *Error. A rendered subject that NATS keeps for itself or would refuse
// ($JS.API…, _INBOX…, a wildcard, an empty token: address.Check) is never
// sent, and neither is a message while the last connect went to an
// address that Options.BlockPrivateAddresses refuses: Publish returns a
// *queuebox.UndeliverableError and the row goes dead. Publish also returns when ctx ends, with an error that wraps
// ctx.Err(); the message may then have been stored (at least once).
func (p *Publisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	if p.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return p.fail(ctx, "", err)
	}
	if d.Message == nil {
		return errors.New("nats destination: delivery without a message")
	}
	subject, err := p.subject.Render(d.Message)
	if err != nil {
		return p.fail(ctx, "", err)
	}
	if err := p.subject.Refuse(address.NATSSubject, subject, destPrefix(p.opts.Name), "subject"); err != nil {
		return err
	}
	if err := checkHeaders("row header", d.Message.Headers); err != nil {
		return p.fail(ctx, subject, err)
	}
	if !p.nc.IsConnected() {
		if p.guard != nil {
			// The client dials in the background; what it last ran into
			// tells a refused address from a server that is down.
			if refused := failure.Blocked("nats", p.opts.Name, p.guard.Blocked()); refused != nil {
				return refused
			}
		}
		return p.fail(ctx, subject, errors.New("not connected to a nats server"))
	}
	msg := &gonats.Msg{Subject: subject, Data: d.Body, Header: buildHeader(d.Message, p.opts.Headers)}
	pctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	if p.opts.Core {
		if err := p.nc.PublishMsg(msg); err != nil {
			return p.fail(ctx, subject, err)
		}
		if err := p.nc.FlushWithContext(pctx); err != nil {
			return p.fail(ctx, subject, err)
		}
		return nil
	}
	if _, err := p.js.PublishMsg(pctx, msg); err != nil {
		return p.fail(ctx, subject, err)
	}
	return nil
}

// Close closes the connection. A publish in flight ends with an error;
// Publish calls that follow return ErrClosed. Close is idempotent and
// always returns nil.
func (p *Publisher) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	p.nc.Close()
	return nil
}
