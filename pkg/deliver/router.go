// Package deliver is the outbox poller of queuebox-deliver: it claims due
// rows, routes them by topic, runs the transforms, publishes them and
// writes each outcome with the claim fence.
package deliver

import (
	"fmt"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/glob"
)

// Route is one compiled entry of the routes list.
type Route struct {
	Index   int
	Pattern glob.Pattern
	Config  config.Route
	// Destination is the destination the route names.
	Destination *config.Destination
}

// Router matches topics against the routes in list order; the first match
// wins. It is immutable and safe for concurrent use.
type Router struct {
	routes []Route
}

// NewRouter compiles the routes. The configuration loader already refused
// unknown destinations and `***`; NewRouter checks again so that a Config
// built in code gets the same answer.
func NewRouter(routes []config.Route, destinations map[string]*config.Destination) (*Router, error) {
	r := &Router{}
	for i, rc := range routes {
		p, err := glob.Compile(rc.TopicPattern)
		if err != nil {
			return nil, fmt.Errorf("routes[%d].topicPattern: %w", i, err)
		}
		d, ok := destinations[rc.Destination]
		if !ok {
			return nil, fmt.Errorf("routes[%d].destination: no destination named %q", i, rc.Destination)
		}
		r.routes = append(r.routes, Route{Index: i, Pattern: p, Config: rc, Destination: d})
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
