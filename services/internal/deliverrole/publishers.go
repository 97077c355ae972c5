package deliverrole

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/tracing"
	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// newPublishers builds one publisher per destination whose kind this
// build supports. A destination without a publisher sends its rows dead
// with a reason that names it. http.blockPrivateAddresses was checked when
// the configuration loaded; every publisher checks it again (see
// logAddressGuard).
func newPublishers(_ context.Context, app *run.App, redactor *redact.Redactor) (map[string]queuebox.Publisher, error) {
	logAddressGuard(app)
	responses := httpdest.NewResponsesCounter(app.Registry)
	out := map[string]queuebox.Publisher{}
	for name, d := range app.Config.Destinations {
		var p queuebox.Publisher
		var err error
		switch d.Kind {
		case config.KindHTTP:
			p, err = httpPublisher(app, name, d, redactor, responses)
		case config.KindRabbitMQ:
			p, err = rabbitPublisher(app, name, d, redactor)
		case config.KindNATS:
			p, err = natsPublisher(app, name, d, redactor)
		case config.KindKafka:
			p, err = kafkaPublisher(app, name, d, redactor)
		default:
			app.Log.Warn("destination kind has no publisher in this build; its rows go dead", "destination", name, "kind", d.Kind)
			continue
		}
		if err == nil && d.Signing != nil {
			p, err = signed(p, d.Signing)
		}
		if err != nil {
			return nil, fmt.Errorf("destinations.%s: %w", name, err)
		}
		// Outermost, so the send span covers the signing too; the
		// signature covers no header, so the traceparent changes none.
		out[name] = tracing.WrapPublisher(p, tracing.PublisherOptions{System: string(d.Kind), Destination: name})
	}
	return out, nil
}

func httpPublisher(app *run.App, name string, d *config.Destination, redactor *redact.Redactor,
	responses *prometheus.CounterVec) (queuebox.Publisher, error) {
	return httpdest.New(httpdest.Options{
		Name: name, BaseURL: d.BaseURL, Path: d.Path, Timeout: config.Ms(d.TimeoutMs),
		Headers: d.Headers, Auth: httpAuth(d.Auth), MaxErrorBodyBytes: app.Config.HTTP.MaxErrorBodyBytes,
		Redactor: redactor, Responses: responses, Logger: app.Log.With("destination", name),
		BlockPrivateAddresses: app.Config.HTTP.BlockPrivateAddresses, NoHTTP1FastPath: !d.HTTP1FastPath,
	})
}

// logAddressGuard states at start what http.blockPrivateAddresses covers
// when it is on: every destination kind, with the HTTP, RabbitMQ and
// NATS publishers checking each connection in their dialers, and Kafka,
// whose librdkafka dials on its own, checked by name resolution. Broker
// sources are the operator's own brokers and are not covered.
func logAddressGuard(app *run.App) {
	if !app.Config.HTTP.BlockPrivateAddresses {
		return
	}
	app.Log.Info("http.blockPrivateAddresses is on: a destination on an inside address is refused",
		"kinds", "http,rabbitmq,nats,kafka",
		"each_connection", "http (publish and oauth2 tokenUrl),rabbitmq,nats",
		"kafka", "bootstrap servers at start; bootstrap servers and the brokers of the cluster metadata before a publish, at most every 10 s",
		"not_covered", "broker sources; a connection librdkafka opens between two checks")
}

// rabbitPublisher builds the publisher of a RabbitMQ destination. It
// dials on its first publish: a broker that is down at start fails the
// publishes (their rows retry), not the start.
func rabbitPublisher(app *run.App, name string, d *config.Destination, redactor *redact.Redactor) (queuebox.Publisher, error) {
	return rabbitmq.New(rabbitmq.Options{
		Name: name, URL: d.URL, Exchange: d.Exchange, ExchangeFrom: d.ExchangeFrom,
		ExchangeType: d.ExchangeType, RoutingKeyTemplate: d.RoutingKeyTemplate, DeliveryMode: d.DeliveryMode,
		Headers: d.Headers, Timeout: config.Ms(d.TimeoutMs), Redactor: redactor,
		Logger: app.Log.With("destination", name), BlockPrivateAddresses: app.Config.HTTP.BlockPrivateAddresses,
	})
}

// natsPublisher builds the publisher of a NATS destination. It connects in
// the background: a server that is down at start fails the publishes
// (their rows retry), not the start.
func natsPublisher(app *run.App, name string, d *config.Destination, redactor *redact.Redactor) (queuebox.Publisher, error) {
	p, err := natsb.New(natsb.Options{
		Name: name, Conn: natsb.Conn{Servers: d.Servers, Username: d.Username, Password: d.Password, Token: d.Token},
		Subject: d.Subject, SubjectFrom: d.SubjectFrom, Core: !d.JetStream, Timeout: config.Ms(d.TimeoutMs),
		Headers: d.Headers, Redactor: redactor, Logger: app.Log.With("destination", name),
		BlockPrivateAddresses: app.Config.HTTP.BlockPrivateAddresses,
	})
	if err != nil {
		return nil, err
	}
	if !d.JetStream {
		app.Log.Warn("nats destination publishes on core NATS: a row is sent without proof that anything received it",
			"destination", name)
	}
	return p, nil
}

// kafkaPublisher builds the producer of a Kafka destination (acks=all,
// idempotent). librdkafka connects in the background: a cluster that is
// down at start fails the publishes (their rows retry), not the start.
func kafkaPublisher(app *run.App, name string, d *config.Destination, redactor *redact.Redactor) (queuebox.Publisher, error) {
	return kafkab.New(kafkab.Options{
		Name: name, Conn: kafkab.Conn{BootstrapServers: d.BootstrapServers, SecurityProtocol: d.SecurityProtocol,
			SaslMechanism: d.SaslMechanism, SaslUsername: d.SaslUsername, SaslPassword: d.SaslPassword},
		Topic: d.Topic, TopicFrom: d.TopicFrom, KeyTemplate: d.KeyTemplate, Timeout: config.Ms(d.TimeoutMs),
		Headers: d.Headers, Redactor: redactor, Logger: app.Log.With("destination", name),
		BlockPrivateAddresses: app.Config.HTTP.BlockPrivateAddresses,
	})
}

// signed wraps the publisher of a destination with a signing block, for
// every kind alike. A bad key closes p, so its connections do not leak.
func signed(p queuebox.Publisher, s *config.Signing) (queuebox.Publisher, error) {
	w, err := webhooksig.Wrap(p, webhooksig.Options{Scheme: s.Scheme, Secret: s.Secret, PreviousSecrets: s.PreviousSecrets})
	if err != nil {
		_ = p.Close()
		return nil, err
	}
	return w, nil
}

func httpAuth(a *config.DestinationAuth) *httpdest.Auth {
	if a == nil {
		return nil
	}
	return &httpdest.Auth{
		Kind: a.Kind, ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenURL: a.TokenURL,
		Scope: a.Scope, ExtraParams: a.ExtraParams, Username: a.Username, Password: a.Password,
		HeaderName: a.HeaderName, HeaderValue: a.HeaderValue,
	}
}
