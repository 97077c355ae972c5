package run

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type fakeComponent struct {
	name string
	run  func(ctx context.Context) error
}

func (f fakeComponent) Name() string                  { return f.name }
func (f fakeComponent) Run(ctx context.Context) error { return f.run(ctx) }

func quietInternal() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func listeningServer(t *testing.T) *Server {
	t.Helper()
	s := NewServer("data", "127.0.0.1:0", quietInternal())
	require.NoError(t, s.Listen())
	return s
}

func refused(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return true
	}
	_ = conn.Close()
	return false
}

// The documented order: HTTP stops first, then the components, so the
// components outlive every request that might still need them.
func TestServeStopsHTTPBeforeComponents(t *testing.T) {
	t.Parallel()
	s := listeningServer(t)
	addr := s.Addr()
	httpClosedFirst := make(chan bool, 1)
	comp := fakeComponent{name: "outbox-poller", run: func(ctx context.Context) error {
		<-ctx.Done()
		httpClosedFirst <- refused(addr)
		return nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- serve(ctx, quietInternal(), []*Server{s}, []Component{comp}) }()

	require.Eventually(t, func() bool { return !refused(addr) }, 10*time.Second, 5*time.Millisecond)
	cancel()
	select {
	case err := <-result:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not return after the shutdown request")
	}
	require.True(t, <-httpClosedFirst, "a component stopped while HTTP still served")
}

// A failing component stops the process: serve stops everything else and
// returns the error named after the component.
func TestServeStopsEverythingWhenAComponentFails(t *testing.T) {
	t.Parallel()
	boom := errors.New("broker unreachable")
	s := listeningServer(t)
	stopped := make(chan struct{})
	comps := []Component{
		fakeComponent{name: "rabbitmq.orders", run: func(context.Context) error { return boom }},
		fakeComponent{name: "outbox-poller", run: func(ctx context.Context) error {
			<-ctx.Done()
			close(stopped)
			return nil
		}},
	}
	result := make(chan error, 1)
	go func() { result <- serve(context.Background(), quietInternal(), []*Server{s}, comps) }()
	var err error
	select {
	case err = <-result:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not return after a component failed")
	}
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "rabbitmq.orders: broker unreachable")
	<-stopped
	require.True(t, refused(s.Addr()), "the server still listens")
}
