package wiring

import (
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
)

// RouteSpecs maps the routes list and the destinations onto what the
// router and the transforms of the poller take. Deliver routes its rows
// with them; the admin replay of every role resolves its destination
// filter with the same router.
func RouteSpecs(cfg *config.Config) ([]deliver.RouteSpec, map[string]deliver.DestinationSpec) {
	routes := make([]deliver.RouteSpec, len(cfg.Routes))
	for i, r := range cfg.Routes {
		routes[i] = deliver.RouteSpec{
			TopicPattern: r.TopicPattern, Destinations: r.Targets(), RoutingKeyTemplate: r.RoutingKeyTemplate,
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
