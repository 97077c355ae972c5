package kafka

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/alternayte/queuebox/pkg/netguard"
)

// The bounds of the address check of Options.BlockPrivateAddresses:
// how long a verdict on the cluster's brokers holds, and one lookup.
const (
	guardInterval = 10 * time.Second
	guardLookup   = 2 * time.Second
)

// brokerGuard checks the addresses that librdkafka connects to, for
// Options.BlockPrivateAddresses. librdkafka dials on its own, out of reach
// of a Go dial guard, so the publisher resolves the bootstrap servers and
// every broker of the cluster's metadata itself, before it hands a record
// over. It is safe for concurrent use.
type brokerGuard struct {
	destination string
	bootstrap   []string
	lookup      netguard.Lookup
	now         func() time.Time

	mu      sync.Mutex
	checked time.Time // when verdict was reached; zero for never
	verdict *netguard.BlockedError
}

// first returns the first refusal among hostports, or nil.
func (g *brokerGuard) first(hostports []string) *netguard.BlockedError {
	for _, hp := range hostports {
		ctx, cancel := context.WithTimeout(context.Background(), guardLookup)
		blocked := netguard.CheckHost(ctx, g.destination, hp, g.lookup)
		cancel()
		if blocked != nil {
			return blocked
		}
	}
	return nil
}

// check returns the refusal of the bootstrap servers or of a broker that
// metadata lists, reusing a verdict younger than guardInterval. metadata
// asks the cluster; when it fails, the bootstrap servers alone are judged
// and the verdict is not kept, so the next publish asks again.
func (g *brokerGuard) check(metadata func() (*ckafka.Metadata, error)) *netguard.BlockedError {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.checked.IsZero() && g.now().Sub(g.checked) < guardInterval {
		return g.verdict
	}
	hostports := append([]string(nil), g.bootstrap...)
	md, err := metadata()
	if err == nil {
		for _, b := range md.Brokers {
			hostports = append(hostports, net.JoinHostPort(b.Host, strconv.Itoa(b.Port)))
		}
	}
	verdict := g.first(hostports)
	if err == nil || verdict != nil {
		g.checked, g.verdict = g.now(), verdict
	}
	return verdict
}
