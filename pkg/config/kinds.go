package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
	"github.com/alternayte/queuebox/pkg/secret"
)

// kindRule lists the required keys that select one kind, in the order of
// the table in the configuration reference. The order breaks ties.
type kindRule struct {
	kind string
	keys []string
}

var (
	destinationKinds = []kindRule{
		{KindHTTP, []string{"baseUrl"}},
		{KindRabbitMQ, []string{"url", "exchange"}},
		{KindKafka, []string{"bootstrapServers", "topic"}},
		{KindNATS, []string{"servers", "subject"}},
	}
	sourceKinds = []kindRule{
		{KindHTTP, []string{"path", "idempotencyKeyPath"}},
		{KindRabbitMQ, []string{"queueName", "connectionUrl"}},
		{KindKafka, []string{"bootstrapServers", "topics", "groupId"}},
		{KindNATS, []string{"servers", "stream", "durable"}},
	}
	destinationAuthKinds = []kindRule{
		{AuthOAuth2, []string{"clientId", "clientSecret", "tokenUrl"}},
		{AuthBasic, []string{"username", "password"}},
		{AuthHeader, []string{"headerValue"}},
	}
	sourceAuthKinds = []kindRule{
		{AuthBearer, []string{"token"}},
		{AuthAPIKey, []string{"key"}},
		{AuthHMAC, []string{"secret"}},
	}
)

// Defaults that depend on the kind of an entry.
const (
	defaultHTTPSourceTopic   = "{{ eventType }}"
	defaultBrokerSourceTopic = "{{ source }}"
	defaultIdempotencyPath   = "$.id"
	defaultAPIKeyHeader      = "X-API-Key"
	defaultHMACHeader        = "X-Signature"
	defaultSignaturePrefix   = "sha256="
	defaultDestAuthHeader    = "Authorization"
)

// selectKind returns the kind whose required keys entry (a pointer to a
// struct) sets. The loader never trusts `type` alone: when several kinds
// are complete, `type` breaks the tie, else the table order does. When none
// is complete, `type` decides which missing keys to report.
func selectKind(entry any, typ string, rules []kindRule, path keyPath, ps *problems) string {
	v := reflect.ValueOf(entry).Elem()
	var complete []string
	for _, r := range rules {
		if allKeysSet(v, r.keys) {
			complete = append(complete, r.kind)
		}
	}
	for _, k := range complete {
		if strings.EqualFold(k, strings.TrimSpace(typ)) {
			return k
		}
	}
	if len(complete) > 0 {
		return complete[0]
	}
	for _, r := range rules {
		if strings.EqualFold(r.kind, strings.TrimSpace(typ)) {
			for _, key := range r.keys {
				if !keySet(v, key) {
					ps.add(path.key(key), "required, because type names the %s kind, which needs %s", r.kind, strings.Join(r.keys, " and "))
				}
			}
			return ""
		}
	}
	ps.add(path, "cannot select the kind: the entry sets the required keys of no kind; set %s", describeKinds(rules))
	return ""
}

// describeKinds renders "baseUrl (http), url and exchange (rabbitmq), ...".
func describeKinds(rules []kindRule) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s (%s)", strings.Join(r.keys, " and "), r.kind)
	}
	return strings.Join(parts, ", or ")
}

func allKeysSet(v reflect.Value, keys []string) bool {
	for _, k := range keys {
		if !keySet(v, k) {
			return false
		}
	}
	return true
}

// keySet reports whether a required key holds a value: a text that is not
// blank, a secret that is not empty, or a list with an entry.
func keySet(v reflect.Value, key string) bool {
	f, ok := yamlenv.FieldByKey(v.Type(), key)
	if !ok {
		return false
	}
	fv := v.FieldByIndex(f.Index)
	switch {
	case fv.Type() == secretType:
		return !fv.Interface().(secret.Secret).IsEmpty()
	case fv.Kind() == reflect.String:
		return strings.TrimSpace(fv.String()) != ""
	case fv.Kind() == reflect.Slice:
		return fv.Len() > 0
	}
	return false
}

// selectKinds sets Name and Kind on every entry and fills the defaults
// that depend on the kind. It is idempotent, so Validate may run it again
// on a Config that Load returned or that code built.
func (c *Config) selectKinds(ps *problems) {
	for _, name := range sortedKeys(c.Destinations) {
		d, path := c.Destinations[name], keyPath{"destinations", name}
		if d == nil {
			ps.add(path, "is empty; set the keys of one kind: %s", describeKinds(destinationKinds))
			continue
		}
		d.Name = name
		d.Kind = selectKind(d, d.Type, destinationKinds, path, ps)
		if d.Auth != nil {
			d.Auth.Kind = selectKind(d.Auth, d.Auth.Type, destinationAuthKinds, path.key("auth"), ps)
			if d.Auth.Kind == AuthHeader && d.Auth.HeaderName == "" {
				d.Auth.HeaderName = defaultDestAuthHeader
			}
		}
	}
	for _, name := range sortedKeys(c.Sources) {
		s, path := c.Sources[name], keyPath{"sources", name}
		if s == nil {
			ps.add(path, "is empty; set the keys of one kind: %s", describeKinds(sourceKinds))
			continue
		}
		s.Name = name
		s.fillPreset()
		s.Kind = s.selectSourceKind(path, ps)
		s.fillKindDefaults()
		if s.Auth != nil {
			s.Auth.selectAndFill(path.key("auth"), ps)
		}
	}
	if c.Admin.Auth != nil {
		c.Admin.Auth.selectAndFill(keyPath{"admin", "auth"}, ps)
	}
	if c.Admin.Viewer != nil {
		c.Admin.Viewer.selectAndFill(keyPath{"admin", "viewer"}, ps)
	}
}

// fillKindDefaults fills the topic and idempotencyKeyPath defaults. An
// absent topic takes the default of the kind; a written blank topic stays
// blank so that validation can refuse it on a push source.
func (s *Source) fillKindDefaults() {
	if s.Kind == "" {
		return
	}
	if s.Topic == "" && !s.topicSet {
		s.Topic = defaultBrokerSourceTopic
		if s.Kind == KindHTTP {
			s.Topic = defaultHTTPSourceTopic
		}
	}
	if s.Kind != KindHTTP && strings.TrimSpace(s.IdempotencyKeyPath) == "" {
		s.IdempotencyKeyPath = defaultIdempotencyPath
	}
}

// selectAndFill selects the kind of a source or admin auth block and fills
// its header, prefix and payload format defaults.
func (a *SourceAuth) selectAndFill(path keyPath, ps *problems) {
	if kind, _, ok := presetOf(a); ok {
		// A preset needs the secret, as hmac does, so only type can
		// select one.
		a.Kind = kind
		if a.Secret.IsEmpty() {
			ps.add(path.key("secret"), "required, because type names the %s kind, which needs secret", kind)
		}
		return
	}
	a.Kind = selectKind(a, a.Type, sourceAuthKinds, path, ps)
	switch a.Kind {
	case AuthAPIKey:
		if a.HeaderName == "" {
			a.HeaderName = defaultAPIKeyHeader
		}
	case AuthHMAC:
		if a.HeaderName == "" {
			a.HeaderName = defaultHMACHeader
		}
		if a.SignaturePrefix == nil {
			prefix := defaultSignaturePrefix
			a.SignaturePrefix = &prefix
		}
		a.SignaturePayloadFormat = normalizePayloadFormat(a.SignaturePayloadFormat, a.TimestampHeader)
	}
}

// normalizePayloadFormat maps the accepted spellings to the upper-case
// constants and fills the default. Another value stays as written, so
// validation can name it.
func normalizePayloadFormat(format, timestampHeader string) string {
	switch format {
	case "":
		if strings.TrimSpace(timestampHeader) != "" {
			return PayloadTimestampDotBody
		}
		return PayloadBody
	case "body", PayloadBody:
		return PayloadBody
	case "timestamp-dot-body", PayloadTimestampDotBody:
		return PayloadTimestampDotBody
	}
	return format
}

// kindWarnings reports entries whose type disagrees with the kind that the
// keys selected. The loader follows the keys; an operator should know.
func kindWarnings(c *Config) []string {
	var out []string
	warn := func(path keyPath, typ, kind string) {
		if t := strings.TrimSpace(typ); t != "" && kind != "" && !strings.EqualFold(t, kind) {
			out = append(out, fmt.Sprintf("%s.type is %q, but the keys of the entry select the %s kind, which QueueBox uses", path, t, kind))
		}
	}
	for _, name := range sortedKeys(c.Destinations) {
		warn(keyPath{"destinations", name}, c.Destinations[name].Type, c.Destinations[name].Kind)
	}
	for _, name := range sortedKeys(c.Sources) {
		s := c.Sources[name]
		warn(keyPath{"sources", name}, s.Type, s.Kind)
		if s.Auth != nil {
			// A misspelt preset (standard_webhooks) selects hmac, which
			// refuses every request of that provider: say why.
			warn(keyPath{"sources", name, "auth"}, s.Auth.Type, s.Auth.Kind)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
