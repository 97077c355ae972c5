package deliver

import (
	"fmt"

	"github.com/alternayte/queuebox/pkg/glob"
)

// RouteSpec is one entry of the routes list, in list order.
type RouteSpec struct {
	TopicPattern string
	// Destinations are the names of the DestinationSpecs the route sends
	// each row to: one, or several for a fan-out.
	Destinations []string
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
	// Destinations are the destinations the route names, in list order.
	Destinations []DestinationSpec
}

// Names lists the names of the route's destinations, in list order.
func (r Route) Names() []string {
	names := make([]string, len(r.Destinations))
	for i, d := range r.Destinations {
		names[i] = d.Name
	}
	return names
}

// To returns the route's destination named name, and whether the route
// names it.
func (r Route) To(name string) (DestinationSpec, bool) {
	for _, d := range r.Destinations {
		if d.Name == name {
			return d, true
		}
	}
	return DestinationSpec{}, false
}

// Router matches topics against the routes in list order; the first match
// wins. It is immutable and safe for concurrent use.
type Router struct {
	routes []Route
}

// NewRouter compiles the routes. The configuration loader already refused
// unknown destinations, empty lists and `***`; NewRouter checks again so
// that routes built in code get the same answer.
func NewRouter(routes []RouteSpec, destinations map[string]DestinationSpec) (*Router, error) {
	r := &Router{}
	for i, rs := range routes {
		p, err := glob.Compile(rs.TopicPattern)
		if err != nil {
			return nil, fmt.Errorf("routes[%d].topicPattern: %w", i, err)
		}
		if len(rs.Destinations) == 0 {
			return nil, fmt.Errorf("routes[%d]: names no destination", i)
		}
		rt := Route{Index: i, Pattern: p, Spec: rs}
		for _, name := range rs.Destinations {
			d, ok := destinations[name]
			if !ok {
				return nil, fmt.Errorf("routes[%d].destination: no destination named %q", i, name)
			}
			if _, twice := rt.To(name); twice {
				return nil, fmt.Errorf("routes[%d].destinations: %q named twice", i, name)
			}
			rt.Destinations = append(rt.Destinations, d)
		}
		r.routes = append(r.routes, rt)
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

// FanOut returns the first route that names several destinations, and
// whether there is one.
func (r *Router) FanOut() (Route, bool) {
	for _, rt := range r.routes {
		if len(rt.Destinations) > 1 {
			return rt, true
		}
	}
	return Route{}, false
}

// DestinationsOf returns the names of the destinations a topic routes
// to, in the route's order, or nil when no route matches.
func (r *Router) DestinationsOf(topic string) []string {
	if rt, ok := r.Match(topic); ok {
		return rt.Names()
	}
	return nil
}

// DestinationOf returns the name of the first destination a topic routes
// to, or "" when no route matches. For a fan-out route it names only the
// first; DestinationsOf names them all.
func (r *Router) DestinationOf(topic string) string {
	if names := r.DestinationsOf(topic); len(names) > 0 {
		return names[0]
	}
	return ""
}
