package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/broker/failure"
	"github.com/alternayte/queuebox/pkg/netguard"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
)

// ErrClosed reports a Publish after Close.
var ErrClosed = errors.New("rabbitmq destination: publisher is closed")

// errOwnTimeout is the cause of a publish that ran out of Options.Timeout.
var errOwnTimeout = errors.New("publish timeout")

// closeWait bounds the close handshake of Close.
const closeWait = 2 * time.Second

// Publisher delivers outbox messages to one RabbitMQ destination. It is
// safe for concurrent use; concurrent publishes share one connection and
// one channel, with many messages in flight, each waiting for its own
// confirm. See the package documentation for the headers and the
// reconnect rules.
type Publisher struct {
	opts     Options
	exchange address.Template
	key      address.Key
	mode     uint8
	redactor *redact.Redactor
	guard    *netguard.Dialer // nil unless Options.BlockPrivateAddresses
	// notifyBlocked listens to a new connection's blocks; tests give it
	// a channel of their own, so the shared broker is never put under
	// an alarm.
	notifyBlocked func(*amqp.Connection) <-chan amqp.Blocking

	mu      sync.Mutex
	sess    *session
	dialing *attempt // the dial in flight, or nil
	closed  bool
	done    chan struct{} // closed by Close
	// wg counts the goroutines of the publisher: dials, channel readers
	// and exchange declarations. Close waits for them.
	wg sync.WaitGroup
}

// attempt is one dial, shared by every Publish that waits for it.
type attempt struct {
	done chan struct{}
	sess *session
	err  error
}

var _ queuebox.Publisher = (*Publisher)(nil)

// New validates opts, applies the defaults and returns a publisher. It
// compiles the exchange template and checks the URL, but does not dial:
// the first Publish does.
func New(opts Options) (*Publisher, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", destPrefix(opts.Name), err)
	}
	exchange, err := address.New(destPrefix(opts.Name)+": exchange", opts.Exchange, opts.ExchangeFrom)
	if err != nil {
		return nil, err
	}
	p := &Publisher{opts: opts, exchange: exchange, key: address.NewKey(opts.RoutingKeyTemplate),
		mode: amqp.Persistent, redactor: redactorFor(opts.Redactor, opts.URL), done: make(chan struct{}),
		notifyBlocked: notifyBlocked}
	if opts.BlockPrivateAddresses {
		p.guard = netguard.NewDialer(destPrefix(opts.Name), opts.Timeout)
	}
	if opts.DeliveryMode == "transient" {
		p.mode = amqp.Transient
	}
	return p, nil
}

func destPrefix(name string) string { return failure.Prefix("rabbitmq", name) }

// Publish sends d to the exchange of its row and returns nil only after
// the broker confirmed it (basic.ack, with no basic.return before it).
// Publish declares only an exchange that the configuration spells out; a
// rendered exchange must exist already. A rendered exchange that does not
// exist or that RabbitMQ keeps for itself (amq.…, see address.Check), and
// a routing key past 255 bytes, and a broker address that
// Options.BlockPrivateAddresses refuses, return a
// *queuebox.UndeliverableError: the row goes dead at once. While the
// broker blocks the connection (connection.blocked), Publish sends
// nothing and returns an error caused by failure.ErrBlocked
// (queuebox.NotSent): the row is deferred, not attempted. A
// nack, a return, an address that renders empty, a failed dial or
// declaration, a lost connection and a confirm that does not arrive
// within Options.Timeout each return an error: a failed attempt. When ctx
// ends first, Publish returns at once with an error that wraps ctx.Err();
// the broker may still take the message.
func (p *Publisher) Publish(ctx context.Context, d queuebox.Delivery) error {
	if d.Message == nil {
		return fmt.Errorf("%s: delivery without a message", destPrefix(p.opts.Name))
	}
	if p.isClosed() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return p.fail(ctx, err)
	}
	exchange, err := p.exchange.Render(d.Message)
	if err != nil {
		return fmt.Errorf("%s: exchange: %w", destPrefix(p.opts.Name), err)
	}
	if err := p.exchange.Refuse(address.RabbitMQExchange, exchange, destPrefix(p.opts.Name), "exchange"); err != nil {
		return err
	}
	key := address.RoutingKey(d, p.key)
	if err := address.CheckRoutingKey(key); err != nil {
		return address.Refused(destPrefix(p.opts.Name), "routing key", key, err)
	}
	msg := publishing(d, p.opts.Headers, p.mode)

	tctx, cancel := context.WithTimeoutCause(ctx, p.opts.Timeout, errOwnTimeout)
	defer cancel()
	s, err := p.session(tctx)
	if err != nil {
		return p.fail(tctx, err)
	}
	if reason, blocked := s.link.blocked(); blocked {
		// Sent now, the message would wait for its confirm until the
		// timeout: the row is deferred instead (failure.ErrBlocked).
		text := p.redactor.Redact(fmt.Sprintf("the broker blocked the connection (%s); nothing was sent", reason))
		return failure.New("rabbitmq", p.opts.Name, "", "", text, failure.ErrBlocked)
	}
	if err := p.ensureExchange(tctx, s, exchange); err != nil {
		if errors.Is(err, errNoExchange) {
			return address.Refused(destPrefix(p.opts.Name), "exchange", exchange, err)
		}
		return p.fail(tctx, err)
	}
	w, err := s.send(exchange, key, msg)
	if err != nil {
		return p.fail(tctx, err)
	}
	select {
	case err := <-w.done:
		if err != nil {
			return p.fail(tctx, err)
		}
		return nil
	case <-tctx.Done():
		s.forget(w)
		if context.Cause(tctx) == errOwnTimeout {
			p.discard(s, "no confirm within the publish timeout")
		}
		return p.fail(tctx, fmt.Errorf("wait for the confirm of exchange %q, routing key %q: %w", exchange, key, tctx.Err()))
	}
}

// Connect dials the broker now, when there is no live connection, and
// declares the exchange when it is a literal name; Publish does both on
// its own when it needs them. A start-up may call it to learn early that
// the destination is unreachable; the error is a failed attempt as
// Publish returns it. Connect honours ctx and Options.Timeout.
func (p *Publisher) Connect(ctx context.Context) error {
	tctx, cancel := context.WithTimeoutCause(ctx, p.opts.Timeout, errOwnTimeout)
	defer cancel()
	s, err := p.session(tctx)
	if err != nil {
		return p.fail(tctx, err)
	}
	if !p.exchange.Rendered() {
		if err := p.ensureExchange(tctx, s, p.opts.Exchange); err != nil {
			return p.fail(tctx, err)
		}
	}
	return nil
}

// fail wraps err as a failed attempt of this destination, with every known
// secret masked. The context error stays reachable through errors.Is.
func (p *Publisher) fail(ctx context.Context, err error) error {
	if refused := failure.Blocked("rabbitmq", p.opts.Name, err); refused != nil {
		return refused
	}
	text := p.redactor.Redact(err.Error())
	if context.Cause(ctx) == errOwnTimeout {
		text += fmt.Sprintf(" (timeout %s)", p.opts.Timeout)
	}
	var cause error
	switch {
	case errors.Is(err, context.Canceled):
		cause = context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		cause = context.DeadlineExceeded
	case errors.Is(err, ErrClosed):
		cause = ErrClosed
	}
	return failure.New("rabbitmq", p.opts.Name, "", "", text, cause)
}

// Error is a failed publish (see package failure). Its text never holds a
// known secret, the password of the URL included; Unwrap reaches
// context.Canceled, context.DeadlineExceeded or ErrClosed when the attempt
// ended that way.
type Error = failure.Error

func (p *Publisher) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// spawn runs f on a goroutine that Close waits for, unless the publisher
// is closed.
func (p *Publisher) spawn(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Go(f)
	return true
}

// session returns the live session, dialling when there is none. One dial
// serves every Publish that waits for it; each waits with its own ctx.
func (p *Publisher) session(ctx context.Context) (*session, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	if p.sess != nil && p.sess.alive() {
		s := p.sess
		p.mu.Unlock()
		return s, nil
	}
	if p.sess != nil {
		// The broker closed the channel but not the connection (a 404 or
		// 406 on the confirm channel): the next session dials anew, so the
		// old connection must go, or each such error leaks one.
		p.sess.link.close(0)
		p.sess = nil
	}
	a := p.dialing
	if a == nil {
		a = &attempt{done: make(chan struct{})}
		p.dialing = a
		p.wg.Go(func() { p.dial(a) })
	}
	p.mu.Unlock()
	select {
	case <-a.done:
		return a.sess, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("connect to the broker: %w", ctx.Err())
	case <-p.done:
		return nil, ErrClosed
	}
}

// dial connects and opens the confirm channel, all within the timeout,
// and makes the result the publisher's session.
func (p *Publisher) dial(a *attempt) {
	defer close(a.done)
	s, err := p.connect()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dialing = nil
	switch {
	case err != nil:
		a.err = fmt.Errorf("connect to the broker: %w", err)
		p.opts.Logger.Warn("rabbitmq destination cannot connect", "destination", p.opts.Name,
			"err", p.redactor.Redact(err.Error()))
	case p.closed:
		s.link.close(0)
		a.err = ErrClosed
	default:
		p.sess, a.sess = s, s
		p.opts.Logger.Debug("rabbitmq destination connected", "destination", p.opts.Name)
	}
}

func (p *Publisher) connect() (*session, error) {
	l, err := dialLink(p.opts.URL, "queuebox destination "+p.opts.Name, p.opts.Timeout, p.guard)
	if err != nil {
		return nil, err
	}
	// The handshake deadline ends with the dial; the channel setup is
	// bounded by cutting the socket.
	cut := time.AfterFunc(p.opts.Timeout, func() { l.close(0) })
	s, confirms, returns, closes, err := openSession(l)
	if !cut.Stop() && err == nil {
		err = errors.New("the channel setup ran out of time")
	}
	if err != nil {
		l.close(0)
		return nil, err
	}
	if !p.spawn(func() { s.read(confirms, returns, closes) }) {
		l.close(0)
		return nil, ErrClosed
	}
	blocks := p.notifyBlocked(l.conn)
	if !p.spawn(func() { l.watchBlocked(blocks, s.closed, p.opts.Logger.With("destination", p.opts.Name)) }) {
		l.close(0)
		return nil, ErrClosed
	}
	return s, nil
}

// ensureExchange declares the exchange once per session when the
// configuration spells it out; a rendered exchange is only checked, and a
// missing one fails with errNoExchange. The declaration
// runs on its own goroutine so that a caller whose ctx ends stops waiting;
// a declaration that the broker never answers ends when the session is
// discarded.
func (p *Publisher) ensureExchange(ctx context.Context, s *session, name string) error {
	d, run := s.declaration(name)
	work := func() { s.declare(d, name, p.opts.ExchangeType) }
	if p.exchange.Rendered() {
		work = func() { s.check(d, name) }
	}
	if run && !p.spawn(work) {
		return ErrClosed
	}
	select {
	case <-d.done:
		return d.err
	case <-s.closed:
		return s.reason()
	case <-ctx.Done():
		if context.Cause(ctx) == errOwnTimeout {
			p.discard(s, "the exchange declaration was not answered within the publish timeout")
		}
		return fmt.Errorf("declare the exchange %q: %w", name, ctx.Err())
	}
}

// discard cuts the connection of s, so the next Publish dials a new one.
func (p *Publisher) discard(s *session, why string) {
	p.mu.Lock()
	if p.sess == s {
		p.sess = nil
	}
	p.mu.Unlock()
	p.opts.Logger.Warn("rabbitmq destination drops its connection", "destination", p.opts.Name, "reason", why)
	s.link.close(0)
}

// Close closes the connection (a close handshake of at most two seconds,
// then the socket) and waits for the publisher's goroutines. Publishes in
// flight fail; Publish calls that follow return ErrClosed. Close is
// idempotent and always returns nil.
func (p *Publisher) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	s := p.sess
	p.sess = nil
	p.mu.Unlock()
	if s != nil {
		s.link.close(closeWait)
	}
	p.wg.Wait()
	return nil
}
