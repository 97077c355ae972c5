package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/transform"
)

// wire mounts the HTTP inbox sources on the data port. The HTTP server
// itself is run by run.Main, so the role returns no components. Broker
// sources are not served by this build yet; wire says so once at start.
func wire(_ context.Context, app *run.App) ([]run.Component, error) {
	inbox, err := app.Stores.Inbox()
	if err != nil {
		return nil, err
	}
	m, err := ingest.NewMetrics(app.Registry)
	if err != nil {
		return nil, fmt.Errorf("register the inbox metrics: %w", err)
	}
	handlers, err := ingest.Mount(app.Data, app.Config, ingest.Options{
		Store: inbox, Metrics: m, Log: app.Log,
		Transforms: ingest.Expressions(transform.JSONata),
	})
	if err != nil {
		return nil, err
	}
	for _, h := range handlers {
		app.Log.Info("inbox source mounted", "source", h.Name(), "route", "POST "+h.Route())
	}
	if brokers := brokerSources(app.Config); len(brokers) > 0 {
		app.Log.Warn("broker sources are not served by this build; their messages stay on the broker",
			"sources", brokers)
	}
	return nil, nil
}

// brokerSources lists the sources of a kind other than http, by name.
func brokerSources(cfg *config.Config) []string {
	var names []string
	for name, src := range cfg.Sources {
		if src != nil && src.Kind != config.KindHTTP {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
