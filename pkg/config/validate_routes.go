package config

import (
	"strings"
)

func (v *validator) routes() {
	for i, r := range v.cfg.Routes {
		path := keyPath{"routes"}.index(i)
		if v.required(path.key("topicPattern"), r.TopicPattern) && strings.Contains(r.TopicPattern, "***") {
			v.add(path.key("topicPattern"), "must not hold ***: * matches one segment and ** matches any text, got %q", r.TopicPattern)
		}
		v.routeTargets(r, path)
		if r.Transform != nil {
			v.transform(r.Transform, path.key("transform"))
		}
	}
}

// routeTargets checks that a route names its destination once: either
// destination or a non-empty destinations list of distinct, configured
// names.
func (v *validator) routeTargets(r Route, path keyPath) {
	switch {
	case r.Destination != "" && r.Destinations != nil:
		v.add(path.key("destinations"), "set together with %s; set one of them", path.key("destination"))
		return
	case r.Destinations == nil:
		if v.required(path.key("destination"), r.Destination) {
			v.knownDestination(path.key("destination"), r.Destination)
		}
		return
	case len(r.Destinations) == 0:
		v.add(path.key("destinations"), "is empty; name at least one destination")
		return
	}
	seen := map[string]bool{}
	for i, name := range r.Destinations {
		at := path.key("destinations").index(i)
		switch {
		case strings.TrimSpace(name) == "":
			v.add(at, "is empty; name a destination")
		case seen[name]:
			v.add(at, "names %q a second time; each destination gets a row once", name)
		default:
			v.knownDestination(at, name)
		}
		seen[name] = true
	}
}

// knownDestination checks that name is a configured destination.
func (v *validator) knownDestination(at keyPath, name string) {
	if _, ok := v.cfg.Destinations[name]; !ok {
		v.add(at, "names %q, which is not a configured destination (configured: %s)",
			name, describeNames(sortedKeys(v.cfg.Destinations)))
	}
}

func describeNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// transform checks a transform block of a source, a route or a destination.
// The expression compiles through Options.CompileExpression when it is set,
// so an expression that cannot run stops the start, not the first message.
func (v *validator) transform(t *Transform, path keyPath) {
	if v.required(path.key("expression"), t.Expression) && v.opts.CompileExpression != nil {
		if err := v.opts.CompileExpression(t.Expression, t.MaxDepth); err != nil {
			v.add(path.key("expression"), "does not compile: %v", err)
		}
	}
	v.positive(path.key("timeoutMs"), int64(t.TimeoutMs))
	v.positive(path.key("maxDepth"), int64(t.MaxDepth))
	v.oneOf(path.key("onError"), t.OnError, OnErrorFail, OnErrorSkip, OnErrorDead)
}
