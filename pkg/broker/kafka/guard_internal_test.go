package kafka

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/stretchr/testify/require"
)

// The guard asks the cluster at most once per guardInterval, judges the
// bootstrap servers alone when the cluster does not answer (and asks again
// next time), and sees a broker that the metadata starts to list.
func TestBrokerGuardChecksTheMetadataEveryInterval(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	g := &brokerGuard{destination: "kafka destination events", bootstrap: []string{"kafka.example:9092"},
		now: func() time.Time { return now },
		lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "inside.example" {
				return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
			}
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}}
	asked := 0
	brokers := []ckafka.BrokerMetadata{{Host: "kafka.example", Port: 9092}}
	var down error
	metadata := func() (*ckafka.Metadata, error) {
		asked++
		return &ckafka.Metadata{Brokers: brokers}, down
	}

	down = errors.New("no broker answers")
	require.Nil(t, g.check(metadata))
	require.Nil(t, g.check(metadata))
	require.Equal(t, 2, asked, "a verdict without the metadata is not kept")

	down = nil
	require.Nil(t, g.check(metadata))
	brokers = append(brokers, ckafka.BrokerMetadata{Host: "inside.example", Port: 9093})
	require.Nil(t, g.check(metadata), "the verdict holds for the interval")
	require.Equal(t, 3, asked)

	now = now.Add(guardInterval)
	blocked := g.check(metadata)
	require.NotNil(t, blocked)
	require.Equal(t, "10.1.2.3:9093", blocked.Addr.String())
	require.Same(t, blocked, g.check(metadata))
	require.Equal(t, 4, asked)
}

// A broker that the metadata announces in a legacy IPv4 spelling, which
// Go's resolver does not read but librdkafka's getaddrinfo connects to, is
// judged by the address it spells; one that Go cannot resolve at all is
// refused, since the guard cannot see where librdkafka would connect.
func TestBrokerGuardRefusesAnnouncedHostsItCannotSee(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, want string }{
		{"127.1", "connection to 127.0.0.1:9093 refused: it is a loopback address"},
		{"0x7f000001", "connection to 127.0.0.1:9093 refused: it is a loopback address"},
		{"2130706433", "connection to 127.0.0.1:9093 refused: it is a loopback address"},
		{"unknown.example", `connection to "unknown.example:9093" refused: it is a name that Go cannot resolve`},
	} {
		g := &brokerGuard{destination: "kafka destination events", bootstrap: []string{"kafka.example:9092"}, now: time.Now,
			lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
				if host == "kafka.example" {
					return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
				}
				return nil, errors.New("no such host")
			}}
		blocked := g.check(func() (*ckafka.Metadata, error) {
			return &ckafka.Metadata{Brokers: []ckafka.BrokerMetadata{{Host: tc.host, Port: 9093}}}, nil
		})
		require.NotNil(t, blocked, tc.host)
		require.Contains(t, blocked.Error(), tc.want, tc.host)
	}
}
