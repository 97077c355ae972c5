package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"
)

// result is the broker's answer to one publish; nil is an ack of a
// routed message.
type result = error

// waiter is one publish waiting for its confirm.
type waiter struct {
	tag       uint64
	messageID string
	// returned is set by the reader when a basic.return for this message
	// arrived before its ack.
	returned *amqp.Return
	done     chan result // buffered 1; the reader sends once
}

// session is one connection and its confirm-mode channel. The reader
// goroutine (read) owns the confirms and returns; publishers register a
// waiter per delivery tag before they send the frame.
type session struct {
	link *link
	ch   *amqp.Channel

	// pubMu ties a delivery tag to the frame sent under it: only one
	// publish at a time reads the next tag and sends.
	pubMu sync.Mutex
	// declMu serializes exchange declarations, one RPC at a time.
	declMu sync.Mutex

	mu       sync.Mutex
	pending  map[uint64]*waiter
	declared map[string]*declaration
	err      error         // why the session ended; set before closed closes
	closed   chan struct{} // closed by the reader when the channel ends
}

// declaration is one exchange declared once per session.
type declaration struct {
	done chan struct{}
	err  error
}

// confirmBuffer is how many confirms the client may queue for read.
const confirmBuffer = 256

// openSession opens a channel in confirm mode on l and returns the
// session with its listeners; the caller runs read on its own goroutine.
func openSession(l *link) (*session, chan amqp.Confirmation, chan amqp.Return, chan *amqp.Error, error) {
	ch, err := l.conn.Channel()
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("open a channel: %w", err)
	}
	if err := ch.Confirm(false); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("put the channel in confirm mode: %w", err)
	}
	s := &session{link: l, ch: ch, pending: map[uint64]*waiter{}, declared: map[string]*declaration{},
		closed: make(chan struct{})}
	// The broker sends a return before the ack of the same message. The
	// returns channel is unbuffered, so the client's frame reader hands a
	// return to read, which marks it before it selects again, and only
	// then queues the ack that follows: read can never take that ack
	// first. The confirms channel is buffered, so the frame reader does
	// not stop at every confirm until read is scheduled.
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, confirmBuffer))
	returns := ch.NotifyReturn(make(chan amqp.Return))
	// Buffered: the client's shutdown sends the reason without waiting.
	closes := ch.NotifyClose(make(chan *amqp.Error, 1))
	return s, confirms, returns, closes, nil
}

// read resolves confirms until the channel ends, then fails every publish
// still waiting.
func (s *session) read(confirms <-chan amqp.Confirmation, returns <-chan amqp.Return, closes <-chan *amqp.Error) {
	for {
		select {
		case r, ok := <-returns:
			if !ok {
				returns = nil
				continue
			}
			s.returned(r)
		case c, ok := <-confirms:
			if !ok {
				s.end(closeReason(closes))
				return
			}
			s.confirmed(c)
		}
	}
}

func closeReason(closes <-chan *amqp.Error) error {
	select {
	case e, ok := <-closes:
		if ok && e != nil {
			return fmt.Errorf("the broker closed the channel: %w", e)
		}
	default:
	}
	return errors.New("the channel closed")
}

// returned marks the oldest waiting publish of the returned message. A
// return carries no delivery tag, only the message; the row id is the
// best key it has.
func (s *session) returned(r amqp.Return) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var oldest *waiter
	for _, w := range s.pending {
		if w.messageID == r.MessageId && w.returned == nil && (oldest == nil || w.tag < oldest.tag) {
			oldest = w
		}
	}
	if oldest != nil {
		oldest.returned = &r
	}
}

func (s *session) confirmed(c amqp.Confirmation) {
	s.mu.Lock()
	w := s.pending[c.DeliveryTag]
	delete(s.pending, c.DeliveryTag)
	s.mu.Unlock()
	if w == nil {
		return // the publish gave up waiting
	}
	switch {
	case !c.Ack:
		w.done <- errors.New("the broker refused the message (basic.nack)")
	case w.returned != nil:
		w.done <- fmt.Errorf("the broker could not route the message (basic.return %d %s: exchange %q, routing key %q)",
			w.returned.ReplyCode, w.returned.ReplyText, w.returned.Exchange, w.returned.RoutingKey)
	default:
		w.done <- nil
	}
}

// end records why the session ended and fails the waiting publishes.
func (s *session) end(err error) {
	s.mu.Lock()
	s.err = err
	pending := s.pending
	s.pending = map[uint64]*waiter{}
	// Closed under the lock, so send never registers a waiter after the
	// pending map was handed over.
	close(s.closed)
	s.mu.Unlock()
	for _, w := range pending {
		w.done <- fmt.Errorf("%w; the broker may or may not hold the message", err)
	}
}

// alive reports whether the channel is still open.
func (s *session) alive() bool {
	select {
	case <-s.closed:
		return false
	default:
		return true
	}
}

// reason returns why the session ended.
func (s *session) reason() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return errors.New("the channel closed")
	}
	return s.err
}

// send publishes msg under the next delivery tag and returns the waiter
// of its confirm.
func (s *session) send(exchange, key string, msg amqp.Publishing) (*waiter, error) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	w := &waiter{tag: s.ch.GetNextPublishSeqNo(), messageID: msg.MessageId, done: make(chan result, 1)}
	s.mu.Lock()
	if !s.alive() {
		s.mu.Unlock()
		return nil, s.err
	}
	s.pending[w.tag] = w
	s.mu.Unlock()
	// Publish is not cancelled by the caller's context: a frame cut
	// halfway would break the channel for every other publish. Sending
	// one frame does not wait for the broker.
	if err := s.ch.PublishWithContext(context.Background(), exchange, key, true, false, msg); err != nil {
		s.forget(w)
		return nil, fmt.Errorf("send the message: %w", err)
	}
	return w, nil
}

// forget drops a waiter whose publish gave up; a late confirm is ignored.
func (s *session) forget(w *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[w.tag] == w {
		delete(s.pending, w.tag)
	}
}

// declaration returns the declaration of the exchange name, and whether
// the caller must run it.
func (s *session) declaration(name string) (*declaration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.declared[name]; ok {
		return d, false
	}
	d := &declaration{done: make(chan struct{})}
	s.declared[name] = d
	return d, true
}

// errNoExchange is the answer to the check of a rendered exchange that
// does not exist.
var errNoExchange = errors.New("the exchange does not exist; QueueBox declares only an exchange that the configuration spells out")

// check asks the broker whether the exchange name exists (a passive
// declaration) and ends d; it never creates the exchange. It runs on a
// channel of its own, which the broker closes when the exchange does not
// exist, so the publishes in flight on the confirm channel are not hit.
// A missing exchange is forgotten again: only names that exist stay in
// the session's map.
func (s *session) check(d *declaration, name string) {
	defer close(d.done)
	ch, err := s.link.conn.Channel()
	if err != nil {
		d.err = fmt.Errorf("open a channel to check the exchange %q: %w", name, err)
		s.forgetDeclaration(name, d)
		return
	}
	err = ch.ExchangeDeclarePassive(name, "topic", true, false, false, false, nil)
	var aerr *amqp.Error
	switch {
	case err == nil:
		_ = ch.Close()
		return
	case errors.As(err, &aerr) && aerr.Code == amqp.NotFound:
		d.err = errNoExchange
	default:
		d.err = fmt.Errorf("check the exchange %q: %w", name, err)
	}
	s.forgetDeclaration(name, d)
}

// forgetDeclaration drops d from the map, so the next publish asks again.
func (s *session) forgetDeclaration(name string, d *declaration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.declared[name] == d {
		delete(s.declared, name)
	}
}

// declare declares the exchange durable, of kind, and ends d.
func (s *session) declare(d *declaration, name, kind string) {
	s.declMu.Lock()
	defer s.declMu.Unlock()
	if err := s.ch.ExchangeDeclare(name, kind, true, false, false, false, nil); err != nil {
		d.err = fmt.Errorf("declare the exchange %q (%s, durable): %w", name, kind, err)
	}
	close(d.done)
}
