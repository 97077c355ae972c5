package main

import (
	"context"

	"github.com/alternayte/queuebox/pkg/run"
)

// wire adds the components of the deliver role.
func wire(_ context.Context, _ *run.App) ([]run.Component, error) {
	return nil, nil
}
