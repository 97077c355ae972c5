package rabbitmq_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestPublisherContract(t *testing.T) {
	t.Parallel()
	brokertest.Exercise(t, brokertest.Factory{
		New: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, brokertest.Destination) {
			d, url := newDestination(t)
			p, err := rabbitmq.New(rabbitmq.Options{Name: "contract", URL: url, Exchange: d.exchange, Timeout: cfg.Timeout})
			require.NoError(t, err)
			// Connected before the case starts: a case that stalls the
			// destination at once stalls the broker's answers to a publish,
			// not to the handshake.
			require.NoError(t, p.Connect(t.Context()))
			return p, d
		},
		Unreachable: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, error) {
			addr := strings.TrimPrefix(brokertest.UnreachableURL(t), "http://")
			return rabbitmq.New(rabbitmq.Options{Name: "unreachable", URL: viaProxy(t, addr),
				Exchange: name(t, "x"), Timeout: cfg.Timeout})
		},
	})
}
