// Package deliver is the outbox poller of queuebox-deliver: it claims due
// rows, routes them by topic, runs the transforms, publishes them and
// writes each outcome with the claim fence. It takes its settings as
// Options and its routes and destinations as RouteSpec and
// DestinationSpec; the wiring maps the configuration onto them.
package deliver

import (
	"fmt"

	"github.com/alternayte/queuebox/pkg/glob"
)

// RouteSpec is one entry of the routes list, in list order.
type RouteSpec struct {
	TopicPattern string
	Destination  string // the name of a DestinationSpec
	// RoutingKeyTemplate is nil when the route sets none, so the
	// destination template applies.
	RoutingKeyTemplate            *string
	RoutingKeyMissingFieldDefault string
	Transform                     *TransformSpec // nil when the route has none
}

// DestinationSpec is what the poller knows of a destination: the name
// its publisher is registered under, its kind (the destination_type label
// and the reason of a row no publisher takes) and its transform.
type DestinationSpec struct {
	Name      string
	Kind      string
	Transform *TransformSpec // nil when the destination has none
}

// Route is one compiled entry of the routes list.
type Route struct {
	Index   int
	Pattern glob.Pattern
	Spec    RouteSpec
	// Destination is the destination the route names.
	Destination DestinationSpec
}

// Router matches topics against the routes in list order; the first match
// wins. It is immutable and safe for concurrent use.
type Router struct {
	routes []Route
}

// NewRouter compiles the routes. The configuration loader already refused
// unknown destinations and `***`; NewRouter checks again so that routes
// built in code get the same answer.
func NewRouter(routes []RouteSpec, destinations map[string]DestinationSpec) (*Router, error) {
	r := &Router{}
	for i, rs := range routes {
		p, err := glob.Compile(rs.TopicPattern)
		if err != nil {
			return nil, fmt.Errorf("routes[%d].topicPattern: %w", i, err)
		}
		d, ok := destinations[rs.Destination]
		if !ok {
			return nil, fmt.Errorf("routes[%d].destination: no destination named %q", i, rs.Destination)
		}
		r.routes = append(r.routes, Route{Index: i, Pattern: p, Spec: rs, Destination: d})
	}
	return r, nil
}

// Match returns the first route whose pattern matches the whole topic.
func (r *Router) Match(topic string) (Route, bool) {
	for _, rt := range r.routes {
		if rt.Pattern.Match(topic) {
			return rt, true
		}
	}
	return Route{}, false
}

// DestinationOf returns the name of the destination a topic routes to, or
// "" when no route matches.
func (r *Router) DestinationOf(topic string) string {
	if rt, ok := r.Match(topic); ok {
		return rt.Destination.Name
	}
	return ""
}
