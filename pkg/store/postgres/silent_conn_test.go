package postgres_test

import (
	"context"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// silentProxy forwards TCP to the test server. silence makes every
// connection open at that moment drop its bytes for ever without closing,
// as a failover that moved the address or a frozen server leaves them;
// new connections work.
type silentProxy struct {
	ln    net.Listener
	gen   atomic.Int64
	mu    sync.Mutex
	conns []net.Conn
}

func newSilentProxy(t *testing.T, target string) *silentProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &silentProxy{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go p.accept(target)
	return p
}

func (p *silentProxy) accept(target string) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		gen := p.gen.Load()
		go p.pipe(c, s, gen)
		go p.pipe(s, c, gen)
	}
}

func (p *silentProxy) pipe(dst, src net.Conn, gen int64) {
	defer dst.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		if p.gen.Load() == gen {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
	}
}

func (p *silentProxy) silence() { p.gen.Add(1) }

// closeAll ends every connection, so that closing the pool does not wait
// for the silent ones to time out.
func (p *silentProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// TestWorkerStatementsEndOnASilentConnection: a renewal, a reclaim or a
// gauge read whose caller set no deadline must not wait for ever on a
// connection that went silent; the next one runs on a new connection.
func TestWorkerStatementsEndOnASilentConnection(t *testing.T) {
	t.Parallel()
	s, _ := pgtest.Migrated(t, 1)
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	px := newSilentProxy(t, u.Host)
	u.Host = px.ln.Addr().String()
	db, err := postgres.Open(context.Background(), postgres.Options{ConnString: u.String(), DisplayURL: s.Name,
		PoolSize: 1, StartupTimeout: 10 * time.Second, StatementTimeout: 300 * time.Millisecond, Logger: pgtest.Quiet()})
	require.NoError(t, err)
	t.Cleanup(db.Close)
	o, err := postgres.NewOutbox(db, schema.New(schema.Postgres, schema.DefaultNames()), time.Minute)
	require.NoError(t, err)

	// A deadline of the caller's own replaces the short bound of the test.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = o.Reclaim(ctx) // the pool now holds one idle connection
	require.NoError(t, err)
	px.silence()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = o.Reclaim(context.Background())
	}()
	require.Eventually(t, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}, 20*time.Second, 10*time.Millisecond, "the reclaim returns")
	// The broken connection leaves the pool once its close ends; end it
	// now instead of after its own 15 s bound.
	px.closeAll()
	_, err = o.Pending(ctx)
	require.NoError(t, err, "the next statement runs on a new connection")
}
