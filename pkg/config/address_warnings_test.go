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
