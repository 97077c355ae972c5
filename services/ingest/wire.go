package main

import (
	"context"
	"fmt"
	"sort"

	natsb "github.com/alternayte/queuebox/pkg/broker/nats"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/transform"
)

// wire mounts the HTTP inbox sources on the data port (the HTTP server
// itself is run by run.Main) and returns one consumer per NATS source,
// each with its health component nats.<source>. Broker sources of the
// kinds this build does not serve yet are named in one warning at start.
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
	}
	handlers, err := ingest.Mount(app.Data, app.Config, opts)
	if err != nil {
		return nil, err
	}
	for _, h := range handlers {
		app.Log.Info("inbox source mounted", "source", h.Name(), "route", "POST "+h.Route())
	}
	components, err := natsSources(app, opts)
	if err != nil {
		return nil, err
	}
	if brokers := unservedSources(app.Config); len(brokers) > 0 {
		app.Log.Warn("broker sources are not served by this build; their messages stay on the broker",
			"sources", brokers)
	}
	return components, nil
}

// natsSources builds the consumer of every NATS source, by name.
func natsSources(app *run.App, opts ingest.Options) ([]run.Component, error) {
	redactor := redact.New(secret.Values(app.Config)...)
	var out []run.Component
	for _, name := range sortedSources(app.Config, config.KindNATS) {
		src := app.Config.Sources[name]
		recv, err := ingest.NewReceiver(src, ingest.Transport{DeadLetter: true, BrokerAttributes: true}, opts)
		if err != nil {
			return nil, err
		}
		c, err := natsb.NewConsumer(natsb.ConsumerOptions{
			Conn:   natsb.Conn{Servers: src.Servers, Username: src.Username, Password: src.Password, Token: src.Token},
			Stream: src.Stream, Durable: src.Durable, FilterSubject: src.FilterSubject,
			AckWait: config.Ms(src.AckWaitMs), BatchSize: src.BatchSize,
			Receiver: recv, Redactor: redactor, Logger: app.Log.With("component", "nats."+name),
		})
		if err != nil {
			return nil, err
		}
		app.Health.Add(c.Name(), c.Check)
		app.Log.Info("nats source configured", "source", name, "stream", src.Stream, "durable", src.Durable)
		out = append(out, c)
	}
	return out, nil
}

// unservedSources lists the broker sources of a kind this build does not
// consume (RabbitMQ, Kafka), by name.
func unservedSources(cfg *config.Config) []string {
	var names []string
	for name, src := range cfg.Sources {
		if src != nil && src.Kind != config.KindHTTP && src.Kind != config.KindNATS {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func sortedSources(cfg *config.Config, kind string) []string {
	var names []string
	for name, src := range cfg.Sources {
		if src != nil && src.Kind == kind {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
