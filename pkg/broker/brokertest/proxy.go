package brokertest

import (
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Proxy is a TCP proxy in the test process in front of a real broker, for
// the faults a broker cannot be asked to produce: it stalls the broker's
// answers, cuts every connection, or refuses new ones. It speaks no
// protocol, so it serves any broker. Its methods are safe for concurrent
// use; it closes, with every connection, when the test ends.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	refuse bool
	gate   chan struct{} // non-nil while stalled; closed by Release
	conns  map[net.Conn]struct{}
	done   chan struct{}
	wg     sync.WaitGroup
	closed bool
}

// NewProxy listens on a loopback port and forwards every connection to
// target (host:port).
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// Addr is the host:port that clients dial instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stall holds every byte the broker sends, on every connection, from now
// on, until Release: requests still reach the broker, answers never reach
// the client, and the connections stay open.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate == nil {
		p.gate = make(chan struct{})
	}
}

// Release passes the held answers on and ends the stall.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate != nil {
		close(p.gate)
		p.gate = nil
	}
}

// Cut closes every open connection, as a broker restart or a network
// failure does. New connections are still accepted.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

// Refuse makes the proxy close every new connection at once (on) or
// forward it again (off). Open connections are left alone; Cut them.
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = on
}

// Conns returns the number of open client connections.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns) / 2
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.refuse || p.closed
		p.mu.Unlock()
		if refuse {
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !p.track(c, up) {
			continue
		}
		p.wg.Go(func() { p.pipe(up, c, false) })
		p.wg.Go(func() { p.pipe(c, up, true) })
	}
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

// pipe copies src to dst until either side ends, then closes both. The
// broker's side (answers) waits at the gate while the proxy is stalled.
func (p *Proxy) pipe(dst, src net.Conn, answers bool) {
	defer func() {
		_ = dst.Close()
		_ = src.Close()
		p.mu.Lock()
		delete(p.conns, dst)
		delete(p.conns, src)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && answers && !p.waitGate() {
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// waitGate returns when the proxy is not stalled, false when it closed.
func (p *Proxy) waitGate() bool {
	p.mu.Lock()
	gate := p.gate
	p.mu.Unlock()
	if gate == nil {
		return true
	}
	select {
	case <-gate:
		return true
	case <-p.done:
		return false
	}
}

func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	close(p.done)
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}
