package config

import (
	"net/url"
	"strings"

	"github.com/alternayte/queuebox/pkg/secret"
)

// minKafkaTimeoutMs is the smallest Kafka publish budget: the producer needs
// room for a broker acknowledgement and one retry.
const minKafkaTimeoutMs = 2000

func (v *validator) destinations() {
	for _, name := range sortedKeys(v.cfg.Destinations) {
		d := v.cfg.Destinations[name]
		if d == nil {
			continue
		}
		path := keyPath{"destinations", name}
		if d.Transform != nil {
			v.transform(d.Transform, path.key("transform"))
		}
		v.signing(d, path)
		v.flowControl(d.FlowControl, path.key("flowControl"))
		switch d.Kind {
		case KindHTTP:
			v.httpDestination(d, path)
		case KindRabbitMQ:
			v.rabbitDestination(d, path)
		case KindKafka:
			v.kafkaDestination(d, path)
		case KindNATS:
			v.natsDestination(d, path)
		}
	}
}

func (v *validator) httpDestination(d *Destination, path keyPath) {
	if host, ok := v.endpointURL(path.key("baseUrl"), d.BaseURL); ok {
		v.privateAddress(path.key("baseUrl"), host)
	}
	v.destinationPath(path.key("path"), d.Path)
	v.positive(path.key("timeoutMs"), int64(d.TimeoutMs))
	if d.Auth == nil {
		return
	}
	apath := path.key("auth")
	switch d.Auth.Kind {
	case AuthOAuth2:
		if host, ok := v.endpointURL(apath.key("tokenUrl"), d.Auth.TokenURL); ok {
			v.privateAddress(apath.key("tokenUrl"), host)
		}
	case AuthHeader:
		v.required(apath.key("headerName"), d.Auth.HeaderName)
	}
}

// endpointURL checks the rules of baseUrl and tokenUrl: an absolute http or
// https URL with a host and no user information. It returns the host.
// Messages print the URL masked, because a refused URL may hold a password.
func (v *validator) endpointURL(path keyPath, raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https"):
		v.add(path, "must be an absolute http or https URL, got %q", maskURL(raw))
	case u.User != nil:
		v.add(path, "must not hold a user name or a password; put the credentials in an auth block")
	case u.Hostname() == "":
		v.add(path, "must name a host, got %q", maskURL(raw))
	default:
		return u.Hostname(), true
	}
	return "", false
}

// destinationPath refuses "." and ".." segments, also percent-encoded or
// separated by a backslash, so that a path cannot climb out of baseUrl.
func (v *validator) destinationPath(path keyPath, p string) {
	decoded, err := url.PathUnescape(p)
	if err != nil {
		v.add(path, "holds an invalid percent escape, got %q", p)
		return
	}
	for _, seg := range strings.FieldsFunc(decoded, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			v.add(path, "must not hold a . or .. segment, got %q", p)
			return
		}
	}
}

func (v *validator) rabbitDestination(d *Destination, path keyPath) {
	v.brokerAddresses(path.key("url"), d.URL)
	checkAddressTemplate(&v.problems, path.key("exchange"), d.Exchange, d.Name)
	v.addressColumn(path.key("exchangeFrom"), d.ExchangeFrom)
	v.oneOf(path.key("exchangeType"), d.ExchangeType, "topic", "direct", "fanout")
	v.oneOf(path.key("deliveryMode"), d.DeliveryMode, "persistent", "transient")
	v.positive(path.key("timeoutMs"), int64(d.TimeoutMs))
}

func (v *validator) kafkaDestination(d *Destination, path keyPath) {
	v.brokerAddresses(path.key("bootstrapServers"), d.BootstrapServers)
	checkAddressTemplate(&v.problems, path.key("topic"), d.Topic, d.Name)
	v.addressColumn(path.key("topicFrom"), d.TopicFrom)
	if d.TimeoutMs < minKafkaTimeoutMs {
		v.add(path.key("timeoutMs"), "must be at least %d, got %d", minKafkaTimeoutMs, d.TimeoutMs)
	}
	v.kafkaSecurity(path, d.SecurityProtocol, d.SaslMechanism, d.SaslUsername, d.SaslPassword)
}

func (v *validator) natsDestination(d *Destination, path keyPath) {
	v.brokerAddresses(path.key("servers"), d.Servers)
	checkAddressTemplate(&v.problems, path.key("subject"), d.Subject, d.Name)
	v.addressColumn(path.key("subjectFrom"), d.SubjectFrom)
	v.positive(path.key("timeoutMs"), int64(d.TimeoutMs))
	v.natsCredentials(path, d.Username, d.Password, d.Token)
}

// brokerAddresses applies the start-time check of
// http.blockPrivateAddresses to the hosts of a broker destination: the
// AMQP URI of RabbitMQ, or each of the comma-separated NATS server URLs or
// Kafka host:port pairs.
func (v *validator) brokerAddresses(path keyPath, list string) {
	for _, entry := range strings.Split(list, ",") {
		if host := brokerHost(strings.TrimSpace(entry)); host != "" {
			v.privateAddress(path, host)
		}
	}
}

// brokerHost returns the host of a broker URL (scheme://[user@]host:port)
// or host:port, or "" when it has none.
func brokerHost(entry string) string {
	if entry == "" {
		return ""
	}
	if !strings.Contains(entry, "://") {
		entry = "tcp://" + entry
	}
	u, err := url.Parse(entry)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// addressColumn checks exchangeFrom, topicFrom and subjectFrom when set.
func (v *validator) addressColumn(path keyPath, column string) {
	if column != "" {
		v.oneOf(path, column, addressColumns...)
	}
}

// kafkaSecurity checks the protocol and the SASL keys that a SASL_
// protocol needs. It serves destinations and sources alike.
func (v *validator) kafkaSecurity(path keyPath, protocol, mechanism, username string, password secret.Secret) {
	if !v.oneOf(path.key("securityProtocol"), protocol, "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL") ||
		!strings.HasPrefix(protocol, "SASL_") {
		return
	}
	for key, set := range map[string]bool{
		"saslMechanism": strings.TrimSpace(mechanism) != "",
		"saslUsername":  strings.TrimSpace(username) != "",
		"saslPassword":  !password.IsEmpty(),
	} {
		if !set {
			v.add(path.key(key), "required by %s %s", path.key("securityProtocol").ref(), protocol)
		}
	}
}

// natsCredentials checks that username and password come together and that
// a token does not come with a username.
func (v *validator) natsCredentials(path keyPath, username string, password, token secret.Secret) {
	hasUser := strings.TrimSpace(username) != ""
	switch {
	case hasUser && password.IsEmpty():
		v.add(path.key("password"), "required because %s is set", path.key("username").ref())
	case !hasUser && !password.IsEmpty():
		v.add(path.key("username"), "required because %s is set", path.key("password").ref())
	}
	if hasUser && !token.IsEmpty() {
		v.add(path.key("token"), "must not be set together with %s: set a token or a user name, not both", path.key("username").ref())
	}
}

// flowControl checks the flowControl block that every kind has.
func (v *validator) flowControl(f FlowControl, path keyPath) {
	if f.MaxInFlight != nil {
		v.positive(path.key("maxInFlight"), int64(*f.MaxInFlight))
	}
	v.nonNegative(path.key("ratePerSecond"), int64(f.RatePerSecond))
	v.positive(path.key("maxRetryAfterMs"), int64(f.MaxRetryAfterMs))
	cb, cpath := f.CircuitBreaker, path.key("circuitBreaker")
	v.positive(cpath.key("failureThreshold"), int64(cb.FailureThreshold))
	v.positive(cpath.key("openMs"), int64(cb.OpenMs))
	if cb.OpenMs > MaxOpenMs {
		v.add(cpath.key("openMs"), "must be at most %d (ten minutes), got %d", MaxOpenMs, cb.OpenMs)
	}
}
