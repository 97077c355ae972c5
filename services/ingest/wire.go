package main

import (
	"context"

	"github.com/alternayte/queuebox/pkg/run"
)

// wire adds the HTTP inbox sources and the broker sources.
func wire(_ context.Context, _ *run.App) ([]run.Component, error) {
	return nil, nil
}
