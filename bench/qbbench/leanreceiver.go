package main

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"time"
)

// The fixed answers of the lean receiver: 200 with an empty body, and the
// same with Connection: close for a client that asked to close.
var (
	respOK       = []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	respOKClose  = []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	respContinue = []byte("HTTP/1.1 100 Continue\r\n\r\n")
)

// receiverBuffer is the read buffer of a receiver connection; a request
// line or header line longer than it closes the connection.
const receiverBuffer = 16 << 10

// leanServer is the default receiver: a minimal HTTP/1.1 server on raw
// TCP, one goroutine per connection, that answers every request with a
// pre-built 200 and allocates nothing per request. It exists because the
// receiver shares the 2-core machine with queuebox-deliver and
// PostgreSQL, and the CPU net/http spends per request is the harness's
// cost, not QueueBox's. It keeps connections alive (no pipelining is
// needed: Go's client sends the next request after the answer), honours
// Connection: close and HTTP/1.0, answers Expect: 100-continue, reads
// Content-Length and chunked bodies, and closes a connection on any read
// error or malformed head; it sets no timeouts.
type leanServer struct {
	l     net.Listener
	rc    *receiver
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	done  bool
	wg    sync.WaitGroup
}

// serveLean serves rc on l with the lean server; it returns the stop
// function, which closes the listener and every open connection.
func serveLean(l net.Listener, rc *receiver) func() error {
	s := &leanServer{l: l, rc: rc, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s.stop
}

func (s *leanServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil { // out of descriptors or the like: try again
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if !s.track(c, true) {
			_ = c.Close()
			return
		}
		s.wg.Add(1)
		go s.serve(c)
	}
}

// track adds or removes an open connection; it refuses to add one after
// stop.
func (s *leanServer) track(c net.Conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(s.conns, c)
		return true
	}
	if s.done {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// serve answers the requests of one connection until the client closes
// it, asks to close it, or sends something it cannot read.
func (s *leanServer) serve(c net.Conn) {
	defer s.wg.Done()
	defer s.track(c, false)
	defer c.Close()
	br := bufio.NewReaderSize(c, receiverBuffer)
	for {
		h, err := readHead(br, false)
		if err != nil {
			return
		}
		if h.expectContinue {
			if _, err := c.Write(respContinue); err != nil {
				return
			}
		}
		if _, err := skipBody(br, &h, nil); err != nil {
			return
		}
		s.rc.hit()
		s.rc.answerDelay()
		resp := respOK
		if h.close {
			resp = respOKClose
		}
		if _, err := c.Write(resp); err != nil || h.close {
			return
		}
	}
}

func (s *leanServer) stop() error {
	err := s.l.Close()
	s.mu.Lock()
	s.done = true
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}
