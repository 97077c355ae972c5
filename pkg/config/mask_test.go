package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestSecretsNeverPrint loads a configuration with a value in every secret
// field and every URL password, then prints the whole Config every way a
// log line or a crash report might.
func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	secrets := []string{
		"complete-db-password", "complete-admin-token", "complete-client-secret", "complete-stripe-secret",
		"url-db-pass", "amqp-dest-pass", "amqp-src-pass", "kafka-sasl-pass", "nats-pass", "nats-token",
		"basic-pass", "header-value", "api-key-value", "capture-pass", "bearer-src-token",
	}
	cfg := loadComplete(t,
		"QUEUEBOX_DATABASE_URL=postgres://queuebox:url-db-pass@db:5432/queuebox",
		"QUEUEBOX_DESTINATIONS_BUS_URL=amqp://qb:amqp-dest-pass@rabbit:5672",
		"QUEUEBOX_DESTINATIONS_BUS_EXCHANGE=events",
		"QUEUEBOX_DESTINATIONS_LOG_BOOTSTRAPSERVERS=k:9092",
		"QUEUEBOX_DESTINATIONS_LOG_TOPIC=t",
		"QUEUEBOX_DESTINATIONS_LOG_SECURITYPROTOCOL=SASL_SSL",
		"QUEUEBOX_DESTINATIONS_LOG_SASLMECHANISM=PLAIN",
		"QUEUEBOX_DESTINATIONS_LOG_SASLUSERNAME=u",
		"QUEUEBOX_DESTINATIONS_LOG_SASLPASSWORD=kafka-sasl-pass",
		"QUEUEBOX_DESTINATIONS_SUBJ_SERVERS=nats://n:4222",
		"QUEUEBOX_DESTINATIONS_SUBJ_SUBJECT=s",
		"QUEUEBOX_DESTINATIONS_SUBJ_USERNAME=u",
		"QUEUEBOX_DESTINATIONS_SUBJ_PASSWORD=nats-pass",
		"QUEUEBOX_DESTINATIONS_TOK_SERVERS=nats://n:4222",
		"QUEUEBOX_DESTINATIONS_TOK_SUBJECT=s",
		"QUEUEBOX_DESTINATIONS_TOK_TOKEN=nats-token",
		"QUEUEBOX_DESTINATIONS_BASIC_BASEURL=https://b.example.com",
		"QUEUEBOX_DESTINATIONS_BASIC_AUTH_USERNAME=u",
		"QUEUEBOX_DESTINATIONS_BASIC_AUTH_PASSWORD=basic-pass",
		"QUEUEBOX_DESTINATIONS_HDR_BASEURL=https://h.example.com",
		"QUEUEBOX_DESTINATIONS_HDR_AUTH_HEADERVALUE=header-value",
		"QUEUEBOX_SOURCES_RQ_QUEUENAME=q",
		"QUEUEBOX_SOURCES_RQ_CONNECTIONURL=amqp://qb:amqp-src-pass@rabbit:5672",
		"QUEUEBOX_SOURCES_KEYED_PATH=/keyed",
		"QUEUEBOX_SOURCES_KEYED_IDEMPOTENCYKEYPATH=$.id",
		"QUEUEBOX_SOURCES_KEYED_CONSUMPTION=pull",
		"QUEUEBOX_SOURCES_KEYED_AUTH_KEY=api-key-value",
		"QUEUEBOX_SOURCES_BEARER_PATH=/bearer",
		"QUEUEBOX_SOURCES_BEARER_IDEMPOTENCYKEYPATH=$.id",
		"QUEUEBOX_SOURCES_BEARER_CONSUMPTION=pull",
		"QUEUEBOX_SOURCES_BEARER_AUTH_TOKEN=bearer-src-token",
		"QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PASSWORD=capture-pass",
	)
	require.Equal(t, "amqp-dest-pass", secretOfURL(t, cfg.Destinations["bus"].URL), "the test carries the secrets")

	var out bytes.Buffer
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		for _, v := range []any{*cfg, cfg, cfg.Database, cfg.Admin, cfg.Outbox, cfg.Outbox.Capture.Connection,
			cfg.Destinations, cfg.Destinations["bus"], *cfg.Destinations["basic"], cfg.Sources, *cfg.Sources["rq"], cfg.Sources["keyed"].Auth} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
	}
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	out.Write(data)
	data, err = yaml.Marshal(cfg)
	require.NoError(t, err)
	out.Write(data)
	slog.New(slog.NewJSONHandler(&out, nil)).Info("loaded", "config", cfg, "value", *cfg)
	slog.New(slog.NewTextHandler(&out, nil)).Info("loaded", "config", cfg)

	text := out.String()
	for _, s := range secrets {
		require.NotContains(t, text, s)
	}
	require.Contains(t, text, "Secret(***)")
	require.Contains(t, text, "postgres://queuebox:***@db:5432/queuebox")
	require.Contains(t, text, "amqp://qb:***@rabbit:5672")
	require.Contains(t, text, "orders.example.com", "the masked output still shows what is not secret")
}

// secretOfURL returns the password of a URL, to prove a fixture holds one.
func secretOfURL(t *testing.T, raw string) string {
	t.Helper()
	u, err := ParseDatabaseURL("postgres" + raw[len("amqp"):])
	require.NoError(t, err)
	return u.Password.Reveal()
}

func TestErrorsNeverPrintSecrets(t *testing.T) {
	t.Parallel()
	err := loadError(t, testOptions(baseYAML,
		"QUEUEBOX_DATABASE_TYPE=sqlserver",
		"QUEUEBOX_DATABASE_URL=jdbc:postgresql://db/q?user=u&password=param-secret",
		"QUEUEBOX_DESTINATIONS_HOOK_BASEURL=https://user:userinfo-secret@hooks.example.com",
		"QUEUEBOX_DESTINATIONS_OTHER_BASEURL=ftp://user:ftp-secret@files.example.com",
		"QUEUEBOX_DESTINATIONS_NOHOST_BASEURL=https:///events?password=nohost-secret",
	))
	text := FormatError(err)
	require.Contains(t, text, "destinations.nohost.baseUrl")
	for _, s := range []string{"param-secret", "userinfo-secret", "ftp-secret", "base-db-password", "nohost-secret"} {
		require.NotContains(t, text, s)
	}
	require.Contains(t, text, "password=***")
}
