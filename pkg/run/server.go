package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// HTTPDrainTimeout is how long a stopping server lets requests in flight
// finish before it closes their connections.
const HTTPDrainTimeout = 5 * time.Second

// The connection limits of every server (docs/security.md). An inbox port
// faces the internet: without them a client that trickles a body, or
// holds idle keep-alive connections, keeps memory and sockets for as long
// as it likes.
const (
	// ReadHeaderTimeout bounds the read of the request line and headers.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds the read of the whole request, body included: a
	// body of inbox.maxBodyBytes must arrive within it.
	ReadTimeout = 30 * time.Second
	// WriteTimeout bounds the time from the end of the headers to the end
	// of the answer. It sits above ReadTimeout plus the longest handler
	// wait (a database connection, database.connectionTimeoutMs 30 s by
	// default, is no longer than ReadTimeout).
	WriteTimeout = 90 * time.Second
	// IdleTimeout closes a keep-alive connection that sends no request.
	IdleTimeout = 60 * time.Second
	// MaxHeaderBytes bounds the request line and headers; net/http
	// answers 431 past it.
	MaxHeaderBytes = 32 << 10
)

// Server is one listening port. During shutdown it keeps its listener open
// for the drain window and answers every new request with 503, so a
// sender learns to retry instead of seeing a refused connection.
type Server struct {
	Echo     *echo.Echo
	name     string
	addr     string
	srv      *http.Server
	listener net.Listener
	log      *slog.Logger
	// mu guards draining and inflight; idle is closed when the server is
	// draining and inflight is zero, which ends Shutdown's wait.
	mu       sync.Mutex
	draining bool
	inflight int
	idle     chan struct{}
	// always holds the paths that answer as usual while draining; it is
	// only written before Serve.
	always map[string]bool
	// conns counts the open connections; nil counts nothing. Only written
	// before Serve.
	conns prometheus.Gauge
}

// NewServer returns a server on addr with a fresh echo router that answers
// JSON errors and refuses requests once draining starts.
func NewServer(name, addr string, log *slog.Logger) *Server {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = jsonErrorHandler
	s := &Server{Echo: e, name: name, addr: addr, log: log, always: map[string]bool{}, idle: make(chan struct{})}
	e.Pre(s.gate)
	s.srv = &http.Server{Handler: e, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout,
		WriteTimeout: WriteTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		ConnState: s.connState}
	return s
}

// Name is the server's name: "data" or "management".
func (s *Server) Name() string { return s.name }

// Route is one method and path that a server answers; Path uses the
// router's syntax (":id" for a parameter, "*" for the rest of the path).
type Route struct{ Method, Path string }

// Routes lists the routes registered on the server, sorted by path and
// method. It is safe to call before Serve.
func (s *Server) Routes() []Route {
	var out []Route
	for _, r := range s.Echo.Routes() {
		out = append(out, Route{Method: r.Method, Path: r.Path})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// CountConnections makes g follow the open connections of the server. Call
// it before Serve.
func (s *Server) CountConnections(g prometheus.Gauge) { s.conns = g }

// connState counts a connection from its accept to its close.
func (s *Server) connState(_ net.Conn, state http.ConnState) {
	if s.conns == nil {
		return
	}
	switch state {
	case http.StateNew:
		s.conns.Inc()
	case http.StateClosed, http.StateHijacked:
		s.conns.Dec()
	}
}

// gate counts requests in flight and refuses new ones while draining.
func (s *Server) gate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.enter(c.Request().URL.Path) {
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": "QueueBox is shutting down"})
		}
		defer s.leave()
		return next(c)
	}
}

// enter counts a request in flight, unless the server drains and path is
// not one that answers while draining. Check and count happen under one
// lock, so a request that passes is always seen by Shutdown's wait.
func (s *Server) enter(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining && !s.always[path] {
		return false
	}
	s.inflight++
	return true
}

// leave ends a request counted by enter.
func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.signalIdle()
}

// signalIdle closes idle once the server drains with nothing in flight.
// Callers hold mu. A request that answers while draining may count up
// again afterwards; the wait has ended by then, as a poll would have.
func (s *Server) signalIdle() {
	if !s.draining || s.inflight > 0 {
		return
	}
	select {
	case <-s.idle:
	default:
		close(s.idle)
	}
}

// ServeWhileDraining exempts path from the 503 that a draining server
// answers, as liveness needs: it always answers 200 until the process
// exits. Call it before Serve; it is not safe during serving.
func (s *Server) ServeWhileDraining(path string) { s.always[path] = true }

// Listen binds the port. It fails the start when the port is taken.
func (s *Server) Listen() error {
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listen on %s (%s): %w", s.addr, s.name, err)
	}
	s.listener = l
	return nil
}

// Addr is the bound address; useful when the port was 0.
func (s *Server) Addr() string {
	if s.listener == nil {
		return s.addr
	}
	return s.listener.Addr().String()
}

// Serve answers requests until Shutdown. It returns nil after a shutdown.
func (s *Server) Serve() error {
	s.log.Info("listening", "server", s.name, "addr", s.Addr())
	if err := s.srv.Serve(s.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", s.name, err)
	}
	return nil
}

// Shutdown answers new requests with 503 (except on the paths of
// ServeWhileDraining), waits up to HTTPDrainTimeout until no request is in
// flight, then closes the server.
func (s *Server) Shutdown() {
	s.mu.Lock()
	s.draining = true
	s.signalIdle()
	s.mu.Unlock()
	timer := time.NewTimer(HTTPDrainTimeout)
	defer timer.Stop()
	select {
	case <-s.idle:
	case <-timer.C:
		s.mu.Lock()
		n := s.inflight
		s.mu.Unlock()
		if n > 0 {
			s.log.Warn("requests still in flight after the drain window", "server", s.name, "requests", n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}

// jsonErrorHandler renders echo errors as {"error": "..."}.
func jsonErrorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code := http.StatusInternalServerError
	msg := http.StatusText(code)
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code = he.Code
		if m, ok := he.Message.(string); ok {
			msg = m
		} else {
			msg = http.StatusText(code)
		}
	}
	// A path no route serves, or a route that does not exist in this
	// configuration (admin disabled, health on the management port),
	// answers 404 with no body, as the HTTP API documents.
	if c.Request().Method == http.MethodHead || code == http.StatusNotFound {
		_ = c.NoContent(code)
		return
	}
	_ = c.JSON(code, map[string]string{"error": msg})
}
