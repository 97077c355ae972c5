package main

import (
	"time"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
)

// pollerSettings maps the outbox keys and http.maxErrorBodyBytes onto the
// settings of the poller; the wiring adds the store, router, publishers
// and the rest.
func pollerSettings(cfg *config.Config) deliver.Options {
	ob := cfg.Outbox
	return deliver.Options{
		BatchSize:            ob.BatchSize,
		Concurrency:          ob.Concurrency,
		PollInterval:         pollInterval(ob),
		ClaimTimeout:         config.Ms(ob.ClaimTimeoutMs),
		ShutdownTimeout:      config.Ms(ob.ShutdownTimeoutMs),
		RetryBaseDelay:       config.Ms(ob.RetryBaseDelayMs),
		PendingGaugeInterval: config.Ms(ob.PendingGaugeIntervalMs),
		MaxErrorBytes:        cfg.HTTP.MaxErrorBodyBytes,
	}
}

// pollInterval is the longest wait between two claims: with capture,
// outbox.capture.reconciliationIntervalMs (wake-ups claim sooner), and
// outbox.pollIntervalMs without.
func pollInterval(ob config.Outbox) time.Duration {
	if ob.Capture.Wakes() {
		return config.Ms(ob.Capture.ReconciliationIntervalMs)
	}
	return config.Ms(ob.PollIntervalMs)
}

// routeSpecs maps the routes list and the destinations onto what the
// router and the transforms of the poller take.
func routeSpecs(cfg *config.Config) ([]deliver.RouteSpec, map[string]deliver.DestinationSpec) {
	routes := make([]deliver.RouteSpec, len(cfg.Routes))
	for i, r := range cfg.Routes {
		routes[i] = deliver.RouteSpec{
			TopicPattern: r.TopicPattern, Destination: r.Destination, RoutingKeyTemplate: r.RoutingKeyTemplate,
			RoutingKeyMissingFieldDefault: r.RoutingKeyMissingFieldDefault, Transform: transformSpec(r.Transform),
		}
	}
	dests := make(map[string]deliver.DestinationSpec, len(cfg.Destinations))
	for name, d := range cfg.Destinations {
		dests[name] = deliver.DestinationSpec{Name: d.Name, Kind: d.Kind, Transform: transformSpec(d.Transform)}
	}
	return routes, dests
}

func transformSpec(t *config.Transform) *deliver.TransformSpec {
	if t == nil {
		return nil
	}
	return &deliver.TransformSpec{Expression: t.Expression, TimeoutMs: t.TimeoutMs, MaxDepth: t.MaxDepth, OnError: t.OnError}
}

// adminOptions maps the admin block onto the options of the admin routes.
// The credentials of admin.auth are checked only when admin.insecure is
// false: an insecure admin ignores the block.
func adminOptions(a config.Admin) (admin.Options, error) {
	opts := admin.Options{Enabled: a.Enabled, Insecure: a.Insecure, MaxPayloadBytes: a.MaxPayloadBytes,
		MaxTransformTimeout: config.Ms(a.MaxTransformTimeoutMs)}
	if a.Auth == nil {
		return opts, nil
	}
	opts.AuthKind = a.Auth.Kind
	if a.Insecure {
		return opts, nil
	}
	v, err := auth.New(a.Auth)
	if err != nil {
		return opts, err
	}
	opts.Auth = v
	return opts, nil
}
