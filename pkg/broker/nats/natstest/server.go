package natstest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Server is a nats-server process of one test, with JetStream and a
// store directory that survives a restart. Stop, Kill and Start are
// called from the test goroutine.
type Server struct {
	// URL is nats://127.0.0.1:<port>; it stays the same across restarts.
	URL  string
	port int
	dir  string
	bin  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// StartServer starts nats-server (NATS_SERVER_BIN, default
// /usr/sbin/nats-server) on a free loopback port with JetStream, stores
// in a temporary directory, and stops it when t ends. It skips t when the
// binary is missing.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bin := os.Getenv("NATS_SERVER_BIN")
	if bin == "" {
		bin = "/usr/sbin/nats-server"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no nats-server binary at %s (NATS_SERVER_BIN): %v", bin, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	s := &Server{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), port: port, dir: t.TempDir(), bin: bin}
	s.Start(t)
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Start starts the process (again) on the same port and store, and waits
// until it accepts connections.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Nil(t, s.cmd, "nats-server is already running")
	cmd := exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.dir)
	cmd.Stdout, cmd.Stderr = nil, nil
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	exited := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	require.Eventually(t, func() bool {
		if exited() {
			return true
		}
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err != nil {
			return false
		}
		_ = c.Close()
		return true
	}, 30*time.Second, 20*time.Millisecond, "nats-server to listen on %d", s.port)
	require.False(t, exited(), "nats-server on port %d exited at start", s.port)
}

// Stop ends the process with SIGTERM (a clean shutdown) and waits for it.
// It does nothing when the process is not running.
func (s *Server) Stop(t testing.TB) { s.signal(t, syscall.SIGTERM) }

// Kill ends the process with SIGKILL and waits for it.
func (s *Server) Kill(t testing.TB) { s.signal(t, syscall.SIGKILL) }

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd, s.done = nil, nil
}
