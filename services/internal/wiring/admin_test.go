package wiring

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/secret"
)

func TestRouteSpecsKeepEveryKey(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	key := "{{ .key }}"
	tr := &config.Transform{Expression: "$", TimeoutMs: 5, MaxDepth: 6, OnError: config.OnErrorSkip}
	cfg.Destinations = map[string]*config.Destination{"api": {Name: "api", Kind: config.KindHTTP, Transform: tr}}
	cfg.Routes = []config.Route{{TopicPattern: "order.*", Destination: "api", RoutingKeyTemplate: &key,
		RoutingKeyMissingFieldDefault: "none", Transform: tr}}
	routes, dests := RouteSpecs(&cfg)
	spec := &deliver.TransformSpec{Expression: "$", TimeoutMs: 5, MaxDepth: 6, OnError: deliver.StrategySkip}
	require.Equal(t, []deliver.RouteSpec{{TopicPattern: "order.*", Destinations: []string{"api"}, RoutingKeyTemplate: &key,
		RoutingKeyMissingFieldDefault: "none", Transform: spec}}, routes)
	require.Equal(t, map[string]deliver.DestinationSpec{"api": {Name: "api", Kind: config.KindHTTP, Transform: spec}}, dests)
}

// The strategies of the poller are the values of the onError key.
func TestTransformStrategiesAreTheOnErrorValues(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{config.OnErrorFail, config.OnErrorSkip, config.OnErrorDead},
		[]string{deliver.StrategyFail, deliver.StrategySkip, deliver.StrategyDead})
}

func TestAdminOptions(t *testing.T) {
	t.Parallel()
	a := config.Default().Admin
	a.Enabled = true
	a.Auth = &config.SourceAuth{Kind: config.AuthBearer, Token: secret.New("s3cret")}
	opts, err := adminOptions(a)
	require.NoError(t, err)
	require.NotNil(t, opts.Auth)
	require.Equal(t, admin.Options{Enabled: true, Auth: opts.Auth, AuthKind: config.AuthBearer,
		MaxPayloadBytes: admin.DefaultMaxPayloadBytes, MaxTransformTimeout: admin.DefaultMaxTransformTimeout}, opts)

	// An insecure admin ignores the block, even one that could not check
	// anything.
	a.Insecure, a.Auth = true, &config.SourceAuth{Kind: config.AuthBearer}
	opts, err = adminOptions(a)
	require.NoError(t, err)
	require.Nil(t, opts.Auth)
	require.Equal(t, config.AuthBearer, opts.AuthKind, "the start-up warning names the ignored block")

	a.Insecure = false
	_, err = adminOptions(a)
	require.ErrorContains(t, err, "bearer needs a token")
}
