package config

import (
	"strings"
)

func (v *validator) sources() {
	inboxPaths := map[string]string{} // route path -> first source name
	for _, name := range sortedKeys(v.cfg.Sources) {
		s := v.cfg.Sources[name]
		if s == nil {
			continue
		}
		path := keyPath{"sources", name}
		v.sourceCommon(s, path)
		if s.Transform != nil {
			v.transform(s.Transform, path.key("transform"))
		}
		if s.Filter != nil {
			v.filter(s.Filter, path.key("filter"))
		}
		if s.Auth != nil {
			v.sourceAuth(s.Auth, path.key("auth"))
			if IsPreset(s.Auth.Kind) && s.Kind != KindHTTP && s.Kind != "" {
				v.add(path.key("auth", "type"), "%s verifies an HTTP request; a %s source takes no auth block", s.Auth.Kind, s.Kind)
			}
		}
		switch s.Kind {
		case KindHTTP:
			v.httpSource(s, path, inboxPaths)
		case KindRabbitMQ:
			v.positive(path.key("prefetchCount"), int64(s.PrefetchCount))
		case KindKafka:
			v.kafkaSource(s, path)
		case KindNATS:
			v.natsCredentials(path, s.Username, s.Password, s.Token)
			v.positive(path.key("ackWaitMs"), int64(s.AckWaitMs))
			v.positive(path.key("batchSize"), int64(s.BatchSize))
		}
	}
}

// sourceCommon checks the keys of every kind: consumption, the JSONPaths
// and the topic template of a push source.
func (v *validator) sourceCommon(s *Source, path keyPath) {
	v.oneOf(path.key("consumption"), s.Consumption, ConsumptionPush, ConsumptionPull)
	for key, p := range map[string]string{
		"idempotencyKeyPath": s.IdempotencyKeyPath,
		"aggregateIdPath":    s.AggregateIDPath,
		"eventTypePath":      s.EventTypePath,
	} {
		if p != "" && !IsDefinitePath(p) {
			v.add(path.key(key), "must be a definite JSONPath such as $.data.id (no .., *, filter, slice or union), got %q", p)
		}
	}
	if s.Kind == "" || s.Consumption != ConsumptionPush {
		return
	}
	if strings.TrimSpace(s.Topic) == "" {
		v.add(path.key("topic"), "must not be blank on a push source: the relay writes it as the outbox topic")
		return
	}
	v.eventTypeSource(s, path)
}

// eventTypeSource refuses a push source whose topic reads {{ eventType }}
// while nothing gives the event type: the relay would mark every row dead.
func (v *validator) eventTypeSource(s *Source, path keyPath) {
	if !usesPlaceholder(s.Topic, "eventType") || strings.TrimSpace(s.EventTypePath) != "" || s.EventTypeHeader != "" {
		return
	}
	topic := path.key("topic").ref()
	if s.Kind == KindHTTP {
		v.add(path.key("eventTypePath"), "required because %s is %q, which reads the event type, and an http source takes it from the body only", topic, s.Topic)
		return
	}
	if !s.EventTypeFromHeader {
		v.add(path.key("eventTypePath"), "required because %s is %q, which reads the event type; set it, or set %s to true when every publisher sends the event type header",
			topic, s.Topic, path.key("eventTypeFromHeader").ref())
	}
}

// httpSource checks the rate limit and refuses two sources on one route.
func (v *validator) httpSource(s *Source, path keyPath, inboxPaths map[string]string) {
	if s.RateLimit != nil {
		v.positive(path.key("rateLimit", "requestsPerMinute"), int64(s.RateLimit.RequestsPerMinute))
	}
	if s.TrustTraceContext && s.Auth == nil {
		v.add(path.key("trustTraceContext"), "true needs an auth block: anyone may send to a source without one, and its traceparent would choose the trace and its sampling")
	}
	route := "/" + strings.Trim(strings.TrimSpace(s.Path), "/")
	if first, taken := inboxPaths[route]; taken {
		v.add(path.key("path"), "answers at %s, the same inbox path as source %s", strings.TrimRight(v.cfg.Inbox.BasePath, "/")+route, first)
		return
	}
	inboxPaths[route] = s.Name
}

func (v *validator) kafkaSource(s *Source, path keyPath) {
	if len(s.Topics) == 0 {
		v.add(path.key("topics"), "must list at least one Kafka topic")
	}
	for i, t := range s.Topics {
		if strings.TrimSpace(t) == "" {
			v.add(path.key("topics").index(i), "must not be blank")
		}
	}
	v.oneOf(path.key("autoOffsetReset"), s.AutoOffsetReset, "earliest", "latest")
	v.positive(path.key("maxPollRecords"), int64(s.MaxPollRecords))
	v.kafkaSecurity(path, s.SecurityProtocol, s.SaslMechanism, s.SaslUsername, s.SaslPassword)
}

// filter checks the rules of a header filter: a header, and exactly one of
// equals, in, matches and exists.
func (v *validator) filter(f *Filter, path keyPath) {
	for list, rules := range map[string][]FilterRule{"require": f.Require, "exclude": f.Exclude} {
		for i, r := range rules {
			v.filterRule(r, path.key(list).index(i))
		}
	}
}

func (v *validator) filterRule(r FilterRule, path keyPath) {
	v.required(path.key("header"), r.Header)
	var set []string
	for key, isSet := range map[string]bool{"equals": r.Equals != nil, "in": r.In != nil, "matches": r.Matches != nil, "exists": r.Exists != nil} {
		if isSet {
			set = append(set, key)
		}
	}
	switch {
	case len(set) == 0:
		v.add(path, "sets none of equals, in, matches and exists; set exactly one")
	case len(set) > 1:
		v.add(path, "sets more than one of equals, in, matches and exists; set exactly one")
	}
	if r.In != nil && len(r.In) == 0 {
		v.add(path.key("in"), "must not be empty")
	}
	if r.Exists != nil && !*r.Exists {
		v.add(path.key("exists"), "false is not allowed: a rule tests that a header is present; to drop messages with a header, put exists: true under exclude")
	}
}

// sourceAuth checks a source or admin auth block after kind selection.
func (v *validator) sourceAuth(a *SourceAuth, path keyPath) {
	v.deduplicateOnBody(a, path)
	if IsPreset(a.Kind) {
		v.presetAuth(a, path)
		return
	}
	switch a.Kind {
	case AuthAPIKey:
		v.required(path.key("headerName"), a.HeaderName)
	case AuthHMAC:
		v.required(path.key("headerName"), a.HeaderName)
		v.oneOf(path.key("algorithm"), a.Algorithm, "HmacSHA256", "HmacSHA512")
		v.positive(path.key("timestampTolerance"), int64(a.TimestampTolerance))
		fpath := path.key("signaturePayloadFormat")
		switch a.SignaturePayloadFormat {
		case PayloadBody:
		case PayloadTimestampDotBody:
			if strings.TrimSpace(a.TimestampHeader) == "" {
				v.add(fpath, "TIMESTAMP_DOT_BODY needs %s, which is not set", path.key("timestampHeader").ref())
			}
		default:
			v.add(fpath, "must be body (or BODY) or timestamp-dot-body (or TIMESTAMP_DOT_BODY), got %q", a.SignaturePayloadFormat)
		}
	}
}
