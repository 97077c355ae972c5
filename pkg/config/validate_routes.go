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
		if v.required(path.key("destination"), r.Destination) {
			if _, ok := v.cfg.Destinations[r.Destination]; !ok {
				v.add(path.key("destination"), "names %q, which is not a configured destination (configured: %s)",
					r.Destination, describeNames(sortedKeys(v.cfg.Destinations)))
			}
		}
		if r.Transform != nil {
			v.transform(r.Transform, path.key("transform"))
		}
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
