package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A broker destination whose whole address is sender data loads, with a
// warning that names the key; a fixed prefix, a literal address and an
// HTTP destination draw none.
func TestAWholeAddressFromTheRowWarns(t *testing.T) {
	t.Parallel()
	file := baseYAML + `destinations:
  a-nats:
    servers: nats://nats:4222
    subject: "{{ topic }}"
  b-kafka:
    bootstrapServers: kafka:9092
    topic: "{{payload.type}}{{ key }}"
  c-rabbit:
    url: amqp://rabbit:5672
    exchange: ignored
    exchangeFrom: aggregate_type
  d-kafka:
    bootstrapServers: kafka:9092
    topic: ignored
    topicFrom: topic
  e-prefixed:
    servers: nats://nats:4222
    subject: "events.{{ topic }}"
  f-literal:
    url: amqp://rabbit:5672
    exchange: events
    routingKeyTemplate: "{{ topic }}"
  g-suffix:
    bootstrapServers: kafka:9092
    topic: "{{ topic }}.v1"
  h-http:
    baseUrl: https://api.example.com
`
	cfg := mustLoad(t, testOptions(file))
	advice := ": the sender of the row chooses the whole address; give it a fixed prefix of your own (for example events.{{ topic }})"
	require.Equal(t, []string{
		"destinations.a-nats.subject is only the placeholder {{ topic }}" + advice,
		"destinations.b-kafka.topic is only the placeholder {{payload.type}}{{ key }}" + advice,
		"destinations.c-rabbit.exchangeFrom is the column aggregate_type" + advice,
		"destinations.d-kafka.topicFrom is the column topic" + advice,
	}, cfg.Warnings())
}

func TestOnlyPlaceholders(t *testing.T) {
	t.Parallel()
	for tmpl, want := range map[string]bool{
		"{{ topic }}": true, " {{topic}} ": true, "{{ a }}{{ b }}": true, "{{ a }} {{ b }}": true,
		"x{{ topic }}": false, "{{ topic }}x": false, "{{ a }}.{{ b }}": false, "plain": false, "": false,
		"{{ topic": false, "{{ a }}{{ b": false,
	} {
		require.Equal(t, want, onlyPlaceholders(tmpl), tmpl)
	}
}

// http1FastPath defaults to true, takes a boolean from the file or its
// variable, refuses anything else naming the variable, and warns when it
// is turned off where it could not apply.
func TestHTTP1FastPath(t *testing.T) {
	t.Parallel()
	file := baseYAML + `destinations:
  plain:
    baseUrl: http://receiver:8080
  tls:
    baseUrl: https://api.example.com
    http1FastPath: false
  other:
    baseUrl: http://other:8080
`
	cfg := mustLoad(t, testOptions(file, "QUEUEBOX_DESTINATIONS_OTHER_HTTP1FASTPATH=false"))
	require.True(t, cfg.Destinations["plain"].HTTP1FastPath)
	require.False(t, cfg.Destinations["tls"].HTTP1FastPath)
	require.False(t, cfg.Destinations["other"].HTTP1FastPath)
	require.Equal(t, []string{"destinations.tls.http1FastPath is false, but baseUrl is not http://: " +
		"only a plain http:// destination uses the fast path, so the setting changes nothing"}, cfg.Warnings())

	err := loadError(t, testOptions(file, "QUEUEBOX_DESTINATIONS_PLAIN_HTTP1FASTPATH=maybe"))
	require.Contains(t, FormatError(err), "QUEUEBOX_DESTINATIONS_PLAIN_HTTP1FASTPATH")
}
