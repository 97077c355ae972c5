package rabbitmq_test

import (
	"strings"
	"testing"
	"time"

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
			connect(t, p)
			return p, d
		},
		Unreachable: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, error) {
			addr := strings.TrimPrefix(brokertest.UnreachableURL(t), "http://")
			return rabbitmq.New(rabbitmq.Options{Name: "unreachable", URL: viaProxy(t, addr),
				Exchange: name(t, "x"), Timeout: cfg.Timeout})
		},
	})
}

// connect connects p before a case starts. The stall cases give the
// publisher a 250 ms timeout, which also bounds its handshake and exchange
// declaration; on a loaded machine one try can take longer, so it tries
// again until a generous deadline: only a broker that never answers fails.
func connect(t *testing.T, p *rabbitmq.Publisher) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := p.Connect(t.Context())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			require.NoError(t, err, "connect before the case")
		}
		t.Logf("connect before the case: %v; trying again", err)
	}
}
