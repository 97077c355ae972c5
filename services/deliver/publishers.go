package main

import (
	"context"
	"fmt"

	"github.com/alternayte/queuebox/pkg/broker/webhook"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/run"
)

// newPublishers builds one publisher per destination whose kind this
// build supports. A destination without a publisher sends its rows dead
// with a reason that names it. http.blockPrivateAddresses was checked when
// the configuration loaded.
func newPublishers(_ context.Context, app *run.App, redactor *redact.Redactor) (map[string]queuebox.Publisher, error) {
	cfg := app.Config
	responses := webhook.NewResponsesCounter(app.Registry)
	out := map[string]queuebox.Publisher{}
	for name, d := range cfg.Destinations {
		if d.Kind != config.KindHTTP {
			app.Log.Warn("destination kind has no publisher in this build; its rows go dead", "destination", name, "kind", d.Kind)
			continue
		}
		p, err := webhook.New(webhook.Options{
			Name: name, BaseURL: d.BaseURL, Path: d.Path, Timeout: config.Ms(d.TimeoutMs),
			Headers: d.Headers, Auth: webhookAuth(d.Auth), MaxErrorBodyBytes: cfg.HTTP.MaxErrorBodyBytes,
			Redactor: redactor, Responses: responses, Logger: app.Log.With("destination", name),
		})
		if err != nil {
			return nil, fmt.Errorf("destinations.%s: %w", name, err)
		}
		out[name] = p
	}
	return out, nil
}

func webhookAuth(a *config.DestinationAuth) *webhook.Auth {
	if a == nil {
		return nil
	}
	return &webhook.Auth{
		Kind: a.Kind, ClientID: a.ClientID, ClientSecret: a.ClientSecret, TokenURL: a.TokenURL,
		Scope: a.Scope, ExtraParams: a.ExtraParams, Username: a.Username, Password: a.Password,
		HeaderName: a.HeaderName, HeaderValue: a.HeaderValue,
	}
}
