package main

import (
	"context"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/run"
)

// newPublishers builds one publisher per destination whose kind this
// build supports. A destination without a publisher sends its rows dead
// with a reason that names it.
func newPublishers(_ context.Context, _ *run.App, _ *redact.Redactor) (map[string]queuebox.Publisher, error) {
	return map[string]queuebox.Publisher{}, nil
}
