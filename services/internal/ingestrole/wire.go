package ingestrole

import (
	"context"
	"fmt"
	"sort"

	kafkab "github.com/alternayte/queuebox/pkg/broker/kafka"
	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/broker/rabbitmq"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/source/webhook"
	"github.com/alternayte/queuebox/pkg/transform"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// Role is the ingest role: the HTTP inbox sources on the data port and one
// consumer per broker source.
var Role = wiring.Role{Name: "ingest", Runs: "the HTTP inbox sources and the RabbitMQ, NATS and Kafka sources", Wire: wire}

// wire mounts the HTTP inbox sources on the data port (the HTTP server
// itself is run by package run) and returns one consumer per broker source
// (RabbitMQ, NATS, Kafka), each with its health component
// <kind>.<source>.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	inbox, err := app.Stores.Inbox()
	if err != nil {
		return nil, err
	}
	m, err := ingest.NewMetrics(app.Registry)
	if err != nil {
		return nil, fmt.Errorf("register the inbox metrics: %w", err)
	}
	opts := ingest.Options{
		Store: inbox, Metrics: m, Log: app.Log,
		Transforms: ingest.Expressions(transform.JSONata),
		// A source transform may not build a payload larger than a body
		// that the source would accept.
		MaxTransformOutputBytes: int(app.Config.Inbox.MaxBodyBytes),
	}
	// Requests that arrive together share one insert and one commit; a
	// broker source stores its fetched groups through ReceiveBatch.
	httpOpts := opts
	httpOpts.Store = ingest.NewGroupCommit(inbox, ingest.GroupCommitOptions{})
	handlers, err := webhook.Mount(app.Data, httpInbox(app.Config.Inbox), httpSources(app.Config), httpOpts)
	if err != nil {
		return nil, err
	}
	for _, h := range handlers {
		app.Log.Info("inbox source mounted", "source", h.Name(), "route", "POST "+h.Route())
	}
	return brokerConsumers(app, opts)
}

// consumer is what every broker source runs: a component with a health
// check.
type consumer interface {
	run.Component
	Check(ctx context.Context) error
}

// brokerConsumers builds the consumer of each RabbitMQ, NATS and Kafka
// source, in name order, and registers its health component.
func brokerConsumers(app *run.App, opts ingest.Options) ([]run.Component, error) {
	redactor := redact.New(secret.Values(app.Config)...)
	var out []run.Component
	for _, name := range sourcesOf(app.Config, config.KindRabbitMQ, config.KindNATS, config.KindKafka) {
		src := app.Config.Sources[name]
		// inbox.maxBodyBytes bounds a broker message as it bounds an HTTP
		// body: a larger one is stored dead, cut, and acknowledged.
		recv, err := ingest.NewReceiver(receiveSource(src), ingest.Transport{DeadLetter: true, BrokerAttributes: true,
			MaxBodyBytes: app.Config.Inbox.MaxBodyBytes}, opts)
		if err != nil {
			return nil, err
		}
		var c consumer
		switch src.Kind {
		case config.KindRabbitMQ:
			c, err = rabbitConsumer(app, src, recv, redactor)
			app.Log.Info("inbox source consuming", "source", name, "queue", src.QueueName,
				"url", secret.MaskURL(src.ConnectionURL))
		case config.KindNATS:
			c, err = natsConsumer(app, src, recv, redactor)
			app.Log.Info("nats source configured", "source", name, "stream", src.Stream, "durable", src.Durable)
		default:
			c, err = kafkaConsumer(app, src, recv, redactor)
			app.Log.Info("kafka source configured", "source", name, "topics", src.Topics, "group", src.GroupID)
		}
		if err != nil {
			return nil, err
		}
		app.Health.Add(c.Name(), c.Check)
		out = append(out, c)
	}
	return out, nil
}

func rabbitConsumer(app *run.App, src *config.Source, recv *ingest.Receiver, redactor *redact.Redactor) (consumer, error) {
	return rabbitmq.NewConsumer(rabbitmq.ConsumerOptions{
		URL: src.ConnectionURL, Queue: src.QueueName, Prefetch: src.PrefetchCount, DeclareQueue: src.DeclareQueue,
		Receiver: recv, Redactor: redactor, Logger: app.Log,
	})
}

func natsConsumer(app *run.App, src *config.Source, recv *ingest.Receiver, redactor *redact.Redactor) (consumer, error) {
	return natsb.NewConsumer(natsb.ConsumerOptions{
		Conn:   natsb.Conn{Servers: src.Servers, Username: src.Username, Password: src.Password, Token: src.Token},
		Stream: src.Stream, Durable: src.Durable, FilterSubject: src.FilterSubject,
		AckWait: config.Ms(src.AckWaitMs), BatchSize: src.BatchSize,
		Receiver: recv, Redactor: redactor, Logger: app.Log.With("component", "nats."+src.Name),
	})
}

func kafkaConsumer(app *run.App, src *config.Source, recv *ingest.Receiver, redactor *redact.Redactor) (consumer, error) {
	return kafkab.NewConsumer(kafkab.ConsumerOptions{
		Conn: kafkab.Conn{BootstrapServers: src.BootstrapServers, SecurityProtocol: src.SecurityProtocol,
			SaslMechanism: src.SaslMechanism, SaslUsername: src.SaslUsername, SaslPassword: src.SaslPassword},
		Topics: src.Topics, GroupID: src.GroupID, AutoOffsetReset: src.AutoOffsetReset,
		MaxPollRecords: src.MaxPollRecords, MaxMessageBytes: app.Config.Inbox.MaxBodyBytes, Receiver: recv, Redactor: redactor,
		Logger: app.Log.With("component", "kafka."+src.Name),
	})
}

// sourcesOf lists the sources of the given kinds, by name.
func sourcesOf(cfg *config.Config, kinds ...string) []string {
	var names []string
	for name, src := range cfg.Sources {
		if src == nil {
			continue
		}
		for _, k := range kinds {
			if src.Kind == k {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names
}
