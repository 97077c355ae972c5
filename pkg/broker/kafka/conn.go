package kafka

import (
	"errors"
	"fmt"
	"strings"

	ckafka "github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/alternayte/queuebox/pkg/secret"
)

// Conn holds what a publisher or a consumer needs to reach the brokers:
// the keys that a Kafka destination and a Kafka source share.
type Conn struct {
	// BootstrapServers are the brokers, host:port separated by commas.
	BootstrapServers string
	// SecurityProtocol is PLAINTEXT (the default), SSL, SASL_PLAINTEXT or
	// SASL_SSL.
	SecurityProtocol string
	// SaslMechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), SaslUsername
	// and SaslPassword are required by a SASL_ protocol.
	SaslMechanism string
	SaslUsername  string
	SaslPassword  secret.Secret
}

var protocols = []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}

func (c Conn) protocol() string {
	if p := strings.ToUpper(strings.TrimSpace(c.SecurityProtocol)); p != "" {
		return p
	}
	return "PLAINTEXT"
}

func (c Conn) validate() error {
	var problems []error
	if len(c.servers()) == 0 {
		problems = append(problems, errors.New("bootstrapServers: at least one broker is required"))
	}
	p := c.protocol()
	known := false
	for _, want := range protocols {
		known = known || p == want
	}
	if !known {
		problems = append(problems, fmt.Errorf("securityProtocol: %q is not one of %s", c.SecurityProtocol, strings.Join(protocols, ", ")))
	}
	if strings.HasPrefix(p, "SASL_") {
		if strings.TrimSpace(c.SaslMechanism) == "" || strings.TrimSpace(c.SaslUsername) == "" || c.SaslPassword.IsEmpty() {
			problems = append(problems, fmt.Errorf("securityProtocol %s needs saslMechanism, saslUsername and saslPassword", p))
		}
	}
	return errors.Join(problems...)
}

func (c Conn) servers() []string {
	var out []string
	for _, s := range strings.Split(c.BootstrapServers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// secrets are the values a redactor masks.
func (c Conn) secrets() []string { return []string{c.SaslPassword.Reveal()} }

// configMap maps the connection keys to librdkafka properties, with the
// settings both sides share: librdkafka's log lines come through the logs
// channel (never straight to stderr). An SSL protocol verifies the brokers against the CA certificates
// that librdkafka finds in the system's usual places ("probe"): the
// bundled OpenSSL does not know where this system keeps them.
func (c Conn) configMap(clientID string) ckafka.ConfigMap {
	m := ckafka.ConfigMap{
		"bootstrap.servers":      strings.Join(c.servers(), ","),
		"client.id":              clientID,
		"security.protocol":      strings.ToLower(c.protocol()),
		"go.logs.channel.enable": true,
		"log.connection.close":   false,
	}
	p := c.protocol()
	if strings.HasPrefix(p, "SASL_") {
		m["sasl.mechanisms"] = strings.TrimSpace(c.SaslMechanism)
		m["sasl.username"] = c.SaslUsername
		m["sasl.password"] = c.SaslPassword.Reveal()
	}
	if strings.HasSuffix(p, "SSL") {
		m["ssl.ca.location"] = "probe"
	}
	return m
}
