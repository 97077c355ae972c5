package deliver_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/deliver"
)

func TestNewPollerChecksItsOptions(t *testing.T) {
	t.Parallel()
	router, err := deliver.NewRouter(nil, nil)
	require.NoError(t, err)
	valid := func() deliver.Options {
		return deliver.Options{Store: newMemStore(), Router: router, Metrics: deliver.NewMetrics(prometheus.NewRegistry())}
	}
	_, err = deliver.NewPoller(valid())
	require.NoError(t, err, "every setting has a default, and the logger may be nil")
	for name, edit := range map[string]func(*deliver.Options){
		"no store":           func(o *deliver.Options) { o.Store = nil },
		"no router":          func(o *deliver.Options) { o.Router = nil },
		"no metrics":         func(o *deliver.Options) { o.Metrics = nil },
		"negative batch":     func(o *deliver.Options) { o.BatchSize = -1 },
		"negative lease":     func(o *deliver.Options) { o.ClaimTimeout = -time.Second },
		"negative retry":     func(o *deliver.Options) { o.RetryBaseDelay = -time.Second },
		"negative error cut": func(o *deliver.Options) { o.MaxErrorBytes = -1 },
	} {
		opts := valid()
		edit(&opts)
		_, err := deliver.NewPoller(opts)
		require.Error(t, err, name)
	}
}
