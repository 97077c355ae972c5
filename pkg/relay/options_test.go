package relay_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/relay"
)

// unusedStore stands for a store that New keeps but never calls.
type unusedStore struct{ relay.Store }

func TestNewChecksItsOptions(t *testing.T) {
	t.Parallel()
	valid := func() relay.Options {
		return relay.Options{Store: unusedStore{}, Metrics: relay.NewMetrics(prometheus.NewRegistry())}
	}
	_, err := relay.New(valid())
	require.NoError(t, err, "every setting has a default, and the logger may be nil")
	for name, edit := range map[string]func(*relay.Options){
		"no store":             func(o *relay.Options) { o.Store = nil },
		"no metrics":           func(o *relay.Options) { o.Metrics = nil },
		"negative attempts":    func(o *relay.Options) { o.MaxAttempts = -1 },
		"negative lease":       func(o *relay.Options) { o.ClaimTimeout = -time.Second },
		"negative gauge timer": func(o *relay.Options) { o.PendingGaugeInterval = -time.Second },
	} {
		opts := valid()
		edit(&opts)
		_, err := relay.New(opts)
		require.Error(t, err, name)
	}
}
