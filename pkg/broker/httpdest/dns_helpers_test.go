package httpdest_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
)

// dnsServer is a tiny authoritative DNS server on loopback UDP: it answers
// A queries from a table the test can change, and every other query with
// no answer. It stands in for a resolver whose answer changes after the
// start (DNS rebinding), with no real DNS involved.
type dnsServer struct {
	conn net.PacketConn
	mu   sync.Mutex
	a    map[string]netip.Addr // lower-case name with the final dot
}

func newDNSServer(t *testing.T) *dnsServer {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &dnsServer{conn: conn, a: map[string]netip.Addr{}}
	done := make(chan struct{})
	go func() { defer close(done); s.serve() }()
	t.Cleanup(func() { _ = conn.Close(); <-done })
	return s
}

// set makes name resolve to addr.
func (s *dnsServer) set(name, addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.a[strings.ToLower(name)+"."] = netip.MustParseAddr(addr)
}

// resolver returns a resolver that asks only this server.
func (s *dnsServer) resolver() *net.Resolver {
	addr := s.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func (s *dnsServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if reply, ok := s.answer(buf[:n]); ok {
			_, _ = s.conn.WriteTo(reply, from)
		}
	}
}

func (s *dnsServer) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	s.mu.Lock()
	addr, ok := s.a[strings.ToLower(q.Name.String())]
	s.mu.Unlock()
	if ok && q.Type == dnsmessage.TypeA && addr.Is4() {
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0},
			dnsmessage.AResource{A: addr.As4()})
	}
	out, err := b.Finish()
	return out, err == nil
}
